// The search daemon's wire format and where it lives: one JSON request and one JSON response per
// connection, over a Unix socket in an owner-only runtime folder (never a TCP port: no other user can reach it).
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { MemError } from '../errors.js';

/** Bumped when the request or response shape changes; a daemon of another version is not used. */
export const PROTOCOL_VERSION = 1;

export interface DaemonRequest {
  version: number;
  /** The client's configuration, hashed: a daemon started under other settings must not answer. */
  configKey: string;
  op: 'search' | 'ping' | 'stop';
  input?: unknown;
}

export type DaemonResponse =
  | { ok: true; results?: unknown; pid?: number }
  | { ok: false; error: { code: string; message: string; exitCode: number } }
  /** Not for this client (other version or settings), or the daemon lost its servers: search in-process. */
  | { ok: false; declined: true };

/** What a daemon and its clients know of the configuration: its root, the socket folder, and the whole of it to hash. */
export interface DaemonTarget {
  root: string;
  /** Owner-only folder of daemon sockets (MemConfig.socketDir). */
  socketDir: string;
}

/**
 * The socket of this root's daemon (and beside it, `.log`: its log), named by a hash of the root. Not under
 * the root: that may be read-only, and a Unix socket path holds at most 107 bytes (a deep root's
 * `.mem/servers/memd.sock` did not fit). The folder is created owner-only; one that another user owns or
 * others can enter is refused (the caller then searches without a daemon).
 */
export function socketPath(target: DaemonTarget): string {
  const dir = target.socketDir;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  const uid = process.getuid?.();
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0) {
    throw new MemError(`${dir} is not a folder that only this user can use: no search daemon`);
  }
  return join(dir, `${createHash('sha256').update(target.root).digest('hex').slice(0, 16)}.sock`);
}

export function configKey(config: DaemonTarget): string {
  return createHash('sha256').update(JSON.stringify(config)).digest('hex').slice(0, 16);
}
