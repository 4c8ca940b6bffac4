// The search daemon (`mem daemon`): keeps one open Memory (SDK loaded, servers connected, model warm)
// and answers searches over the root's Unix socket, so `mem search` skips seconds of start-up.
// It exits after a quiet period, or on SIGTERM/SIGINT.
import { chmodSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';

import { EmbeddingError, IndexUnavailableError, MemError, errorMessage } from '../errors.js';
import type { Memory } from '../services/facade.js';
import { PROTOCOL_VERSION, configKey, serversDir, socketPath, type DaemonResponse, type DaemonTarget } from './protocol.js';
import { MAX_REQUEST_BYTES, parseRequest, parseSearchInput } from './request.js';

export interface DaemonOptions {
  idleMs: number;
  onLog: (line: string) => void;
}

const malformed = (message: string): DaemonResponse => ({ ok: false, error: { code: 'USAGE', message, exitCode: 2 } });

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

/** Serves `memory` (opened by the caller with `config`, closed by it after this returns) until stopped or idle. */
export async function runDaemon(memory: Memory, config: DaemonTarget, options: DaemonOptions): Promise<void> {
  const key = configKey(config);
  const path = socketPath(config.root);
  mkdirSync(serversDir(config.root), { recursive: true });

  let idle: NodeJS.Timeout | undefined;
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const rearm = () => {
    clearTimeout(idle);
    idle = setTimeout(stop, options.idleMs);
  };

  const answer = async (line: string): Promise<DaemonResponse> => {
    const request = parseRequest(line);
    if ('invalid' in request) return malformed(request.invalid);
    if (request.version !== PROTOCOL_VERSION) return { ok: false, declined: true };
    // Ping and stop answer anyone who can open the socket (only this OS user); searches need the same settings.
    if (request.op === 'ping') return { ok: true, pid: process.pid };
    if (request.op === 'stop') {
      setImmediate(stop);
      return { ok: true, pid: process.pid };
    }
    if (request.configKey !== key) return { ok: false, declined: true };
    const input = parseSearchInput(request.input);
    if ('invalid' in input) return malformed(input.invalid);
    try {
      // The user scope arrives from the CLI process that parsed the caller's own flags and environment.
      return { ok: true, results: await memory.search(input) };
    } catch (err) {
      // Lost its servers (stopped or crashed): hand this search back and make way for a fresh daemon.
      if (err instanceof IndexUnavailableError || err instanceof EmbeddingError) {
        setImmediate(stop);
        return { ok: false, declined: true };
      }
      const e = err instanceof MemError ? err : null;
      return { ok: false, error: { code: e?.code ?? 'INTERNAL', message: errorMessage(err), exitCode: e?.exitCode ?? 1 } };
    }
  };

  // allowHalfOpen: the client ends its side after the request; the answer still has to go back.
  const server = createServer({ allowHalfOpen: true }, (socket: Socket) => {
    rearm();
    let data = '';
    let answered = false; // one request per connection: anything after it is ignored
    socket.on('data', (chunk) => {
      if (answered) return;
      data += chunk.toString();
      const newline = data.indexOf('\n');
      if (newline === -1 && data.length <= MAX_REQUEST_BYTES) return;
      answered = true;
      if (newline === -1 || newline > MAX_REQUEST_BYTES) {
        socket.end(JSON.stringify(malformed('daemon request too long')));
        return;
      }
      void answer(data.slice(0, newline)).then((response) => socket.end(JSON.stringify(response)));
    });
    socket.on('error', () => undefined);
  });

  // Only one daemon per root: if the socket answers, another daemon owns it.
  const taken = await new Promise<boolean>((resolve) => {
    const probe = createServer().listen(path);
    probe.on('error', () => resolve(true));
    probe.on('listening', () => probe.close(() => resolve(false)));
  });
  if (taken) {
    if (await socketAlive(path)) return; // another daemon serves this root
    rmSync(path, { force: true }); // a stale socket left by a killed daemon
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  options.onLog(`memd listening on ${path} (pid ${process.pid})`);
  rearm();
  // A root that was deleted (or a socket removed) has nobody left to serve.
  const watch = setInterval(() => {
    if (!existsSync(path)) stop();
  }, 10_000);
  watch.unref();
  process.once('SIGTERM', () => stop());
  process.once('SIGINT', () => stop());
  await stopped;
  clearTimeout(idle);
  clearInterval(watch);
  server.close();
  rmSync(path, { force: true });
}
