// Asks the running search daemon to answer a search, and starts one in the background when there is
// none. Imports nothing heavy: this is the fast path of `mem search`.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { PROTOCOL_VERSION, configKey, socketFolder, socketPath, type DaemonRequest, type DaemonResponse, type DaemonTarget } from './protocol.js';

const MEM_BIN = fileURLToPath(new URL('../../../bin/mem.js', import.meta.url));

/** Sends one request on a socket: the parsed answer, or null (no socket, refused, a daemon that died, timed out). */
function exchange(path: string, request: DaemonRequest, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve) => {
    const socket = connect(path);
    // Bytes, decoded once whole: a character split between two reads must not turn into U+FFFD.
    const data: Buffer[] = [];
    let settled = false;
    const done = (value: unknown) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(value);
    };
    socket.setTimeout(timeoutMs, () => done(null));
    socket.on('error', () => done(null));
    socket.on('connect', () => socket.end(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: Buffer) => data.push(chunk));
    socket.on('end', () => {
      try {
        done(JSON.parse(Buffer.concat(data).toString('utf8')));
      } catch {
        done(null);
      }
    });
  });
}

/** The daemon's answer for this root, or null when there is no usable daemon (the caller then searches itself). */
export async function askDaemon(config: DaemonTarget, op: DaemonRequest['op'], input?: unknown, timeoutMs = 30_000): Promise<DaemonResponse | null> {
  let path: string;
  try {
    path = socketPath(config);
  } catch {
    return null; // no safe place for a socket: search in-process
  }
  const request: DaemonRequest = { version: PROTOCOL_VERSION, configKey: configKey(config), op, root: config.root, ...(input === undefined ? {} : { input }) };
  const response = (await exchange(path, request, timeoutMs)) as DaemonResponse | null;
  return response && !('declined' in response) ? response : null;
}

/** Every daemon answering in this socket folder, whatever its servers' home and settings: its socket and ping answer. */
export async function runningDaemons(
  target: Pick<DaemonTarget, 'socketDir'>,
  timeoutMs = 2_000,
): Promise<{ socket: string; pid: number; roots: string[]; serverHome: string }[]> {
  let dir: string;
  try {
    dir = socketFolder(target);
  } catch {
    return [];
  }
  const sockets = readdirSync(dir).filter((n) => /^memd-[0-9a-f]{16}\.sock$/.test(n));
  const found = await Promise.all(
    sockets.map(async (name) => {
      const ping = { version: PROTOCOL_VERSION, configKey: '', op: 'ping' } as const;
      const answer = (await exchange(join(dir, name), ping, timeoutMs)) as DaemonResponse | null;
      if (!answer?.ok || !answer.pid || answer.serverHome === undefined) return null;
      return { socket: join(dir, name), pid: answer.pid, roots: answer.roots ?? [], serverHome: answer.serverHome };
    }),
  );
  return found.filter((d) => d !== null);
}

/** The daemons of this servers' home (the one of this configuration and those of roots searched under other settings). */
export async function daemonsOfHome(config: DaemonTarget, timeoutMs = 2_000): Promise<{ socket: string; pid: number; roots: string[] }[]> {
  return (await runningDaemons(config, timeoutMs)).filter((d) => d.serverHome === config.serverHome);
}

/** Asks the daemon on this socket to exit: its pid, or null if none answered. */
export async function stopDaemonAt(socket: string, timeoutMs = 5_000): Promise<number | null> {
  const answer = (await exchange(socket, { version: PROTOCOL_VERSION, configKey: '', op: 'stop' }, timeoutMs)) as DaemonResponse | null;
  return answer?.ok && answer.pid ? answer.pid : null;
}

/**
 * Starts the daemon of this configuration in the background (a second one started concurrently just exits); it warms
 * `user`'s memories of this root first. Its pid and socket, for the caller to record (server-control.ts
 * recordDaemonStart), or null when none was started.
 */
export function startDaemon(config: DaemonTarget, user?: string): { pid: number; socket: string } | null {
  let log: number;
  let socket: string;
  try {
    socket = socketPath(config);
    log = openSync(socket.replace(/\.sock$/, '.log'), 'a', 0o600);
  } catch {
    return null; // no safe place for a socket: searches stay in-process
  }
  // The daemon inherits this process's environment (and folder), so it loads the same configuration for every root.
  const child = spawn(process.execPath, [MEM_BIN, '--root', config.root, 'daemon', ...(user === undefined ? [] : ['--warm-user', user])], {
    detached: true,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  child.on('error', () => undefined);
  child.unref();
  return child.pid ? { pid: child.pid, socket } : null;
}
