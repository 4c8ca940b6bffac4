// The search daemon's wire format and where it lives: one JSON request and one JSON response per
// connection, over a Unix socket under the root's `.mem/servers/` (never a TCP port: no other user can reach it).
import { createHash } from 'node:crypto';
import { join } from 'node:path';

import type { MemConfig } from '../config.js';

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

export function serversDir(root: string): string {
  return join(root, '.mem', 'servers');
}

export function socketPath(root: string): string {
  return join(serversDir(root), 'memd.sock');
}

export function configKey(config: MemConfig): string {
  return createHash('sha256').update(JSON.stringify(config)).digest('hex').slice(0, 16);
}
