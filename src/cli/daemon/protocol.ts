// The search daemon's wire format and where it lives: one JSON request and one JSON response per
// connection, over a Unix socket in an owner-only runtime folder (never a TCP port: no other user can reach it).
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { MemConfig } from '../../config.js';
import { MemError } from '../../errors.js';

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

// A Unix socket path holds at most 107 bytes: under a deep root `.mem/servers/memd.sock` did not fit,
// so the socket lives in a short folder of its own, named by a hash of the root.
function runtimeDir(): string {
  const xdg = process.env.XDG_RUNTIME_DIR;
  if (xdg && xdg.length <= 60) return join(xdg, 'memdir');
  const tmp = tmpdir().length <= 60 ? tmpdir() : '/tmp';
  return join(tmp, `memdir-${process.getuid?.() ?? 'user'}`);
}

/**
 * The socket of this root's daemon (and beside it, `.log`: its log). Its folder is created owner-only; one
 * that another user owns or others can enter is refused (the caller then searches without a daemon). Not
 * under the root: that may be read-only, and its path too long.
 */
export function socketPath(root: string): string {
  const dir = runtimeDir();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  const uid = process.getuid?.();
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0) {
    throw new MemError(`${dir} is not a folder that only this user can use: no search daemon`);
  }
  return join(dir, `${createHash('sha256').update(root).digest('hex').slice(0, 16)}.sock`);
}

export function configKey(config: MemConfig): string {
  return createHash('sha256').update(JSON.stringify(config)).digest('hex').slice(0, 16);
}
