// Asks a running search daemon to answer a search, and starts one in the background when there is
// none. Imports nothing heavy: this is the fast path of `mem search`.
import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';

import { PROTOCOL_VERSION, configKey, socketPath, type DaemonRequest, type DaemonResponse, type DaemonTarget } from './protocol.js';

const MEM_BIN = fileURLToPath(new URL('../../bin/mem.js', import.meta.url));

/** The daemon's answer, or null when there is no usable daemon (the caller then searches itself). */
export function askDaemon(config: DaemonTarget, op: DaemonRequest['op'], input?: unknown, timeoutMs = 30_000): Promise<DaemonResponse | null> {
  let path: string;
  try {
    path = socketPath(config);
  } catch {
    return Promise.resolve(null); // no safe place for a socket: search in-process
  }
  return new Promise((resolve) => {
    const socket = connect(path);
    let data = '';
    let settled = false;
    const done = (value: DaemonResponse | null) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(value);
    };
    socket.setTimeout(timeoutMs, () => done(null));
    socket.on('error', () => done(null)); // no socket, refused, or a daemon that died: search in-process
    socket.on('connect', () => {
      const request: DaemonRequest = { version: PROTOCOL_VERSION, configKey: configKey(config), op, input };
      socket.end(`${JSON.stringify(request)}\n`);
    });
    socket.on('data', (chunk) => (data += chunk.toString()));
    socket.on('end', () => {
      try {
        const response = JSON.parse(data) as DaemonResponse;
        done('declined' in response ? null : response);
      } catch {
        done(null);
      }
    });
  });
}

/** Starts a daemon for this root in the background (a second one started concurrently just exits). */
export function startDaemon(config: DaemonTarget): void {
  let log: number;
  try {
    log = openSync(socketPath(config).replace(/\.sock$/, '.log'), 'a');
  } catch {
    return; // no safe place for a socket: searches stay in-process
  }
  // The daemon inherits this process's environment, so it loads the same configuration.
  const child = spawn(process.execPath, [MEM_BIN, '--root', config.root, 'daemon'], {
    detached: true,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  child.on('error', () => undefined);
  child.unref();
}
