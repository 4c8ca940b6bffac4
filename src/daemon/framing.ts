// The daemon's socket: one line of JSON in and one JSON answer out per connection, and taking the socket's path
// (one daemon per configuration; a stale socket of a killed daemon is replaced).
import { chmodSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';

import type { DaemonResponse } from '../adapters/daemon/protocol.js';
import { MAX_INDEX_REQUEST_BYTES, MAX_REQUEST_BYTES } from './request.js';

/** The answer to a request that is not one (exit code 2: the client's usage). */
export const malformed = (message: string): DaemonResponse => ({ ok: false, error: { code: 'USAGE', message, exitCode: 2 } });

/** A server answering each connection's first line with `answer`'s response, then closing it. */
export function lineServer(answer: (line: string) => Promise<DaemonResponse>): Server {
  // allowHalfOpen: the client ends its side after the request; the answer still has to go back.
  return createServer({ allowHalfOpen: true }, (socket: Socket) => {
    // Bytes, decoded once whole: a character split between two reads must not turn into U+FFFD (rows carry any text).
    const chunks: Buffer[] = [];
    let length = 0;
    let answered = false; // one request per connection: anything after it is ignored
    socket.on('data', (chunk: Buffer) => {
      if (answered) return;
      const newlineAt = chunk.indexOf(0x0a);
      chunks.push(chunk);
      length += chunk.length;
      if (newlineAt === -1 && length <= MAX_INDEX_REQUEST_BYTES) return;
      answered = true;
      const newline = newlineAt === -1 ? -1 : length - chunk.length + newlineAt;
      if (newline === -1 || newline > MAX_INDEX_REQUEST_BYTES) {
        socket.end(JSON.stringify(malformed('daemon request too long')));
        return;
      }
      void answer(Buffer.concat(chunks, length).subarray(0, newline).toString('utf8')).then((response) => socket.end(JSON.stringify(response)));
    });
    // The client ended without a whole line: no request will come.
    socket.on('end', () => {
      if (answered) return;
      answered = true;
      socket.end(JSON.stringify(malformed(length > MAX_REQUEST_BYTES ? 'daemon request too long' : 'malformed daemon request: no newline')));
    });
    socket.on('error', () => undefined);
  });
}

function socketAlive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.on('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** Listens on `path`, owner-only: false when another daemon answers there already (it serves these roots). */
export async function listenAt(server: Server, path: string): Promise<boolean> {
  // Only one daemon per configuration: if the socket answers, another daemon owns it.
  const taken = await new Promise<boolean>((resolve) => {
    const probe = createServer().listen(path);
    probe.on('error', () => resolve(true));
    probe.on('listening', () => probe.close(() => resolve(false)));
  });
  if (taken) {
    if (await socketAlive(path)) return false; // another daemon serves these roots
    rmSync(path, { force: true }); // a stale socket left by a killed daemon
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  return true;
}
