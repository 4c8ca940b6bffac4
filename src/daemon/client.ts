// Asks a running search daemon to answer a search, and starts one in the background when there is
// none. Imports nothing heavy: this is the fast path of `mem search`.
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, closeSync } from 'node:fs';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';

import { stateLayout } from '../memory/layout.js';
import { PROTOCOL_VERSION, configKey, serversDir, socketPath, type DaemonRequest, type DaemonResponse, type DaemonTarget } from './protocol.js';

const MEM_BIN = fileURLToPath(new URL('../../bin/mem.js', import.meta.url));

/** The daemon's answer, or null when there is no usable daemon (the caller then searches itself). */
export function askDaemon(config: DaemonTarget, op: DaemonRequest['op'], input?: unknown, timeoutMs = 30_000): Promise<DaemonResponse | null> {
  return new Promise((resolve) => {
    const socket = connect(socketPath(config.root));
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
  mkdirSync(serversDir(config.root), { recursive: true });
  const log = openSync(stateLayout(config.root).daemonLog, 'a');
  // The daemon inherits this process's environment, so it loads the same configuration.
  const child = spawn(process.execPath, [MEM_BIN, '--root', config.root, 'daemon'], {
    detached: true,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  child.on('error', () => undefined);
  child.unref();
}
