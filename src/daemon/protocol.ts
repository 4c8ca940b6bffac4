// The search daemon's wire format and where it lives: one JSON request and one JSON response per
// connection, over a Unix socket under the root's `.mem/servers/` (never a TCP port: no other user can reach it).
import { createHash } from 'node:crypto';

import { stateLayout } from '../memory/layout.js';

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

/** What a daemon and its clients know of the configuration: its root, and the whole of it to hash. */
export interface DaemonTarget {
  root: string;
}

export function serversDir(root: string): string {
  return stateLayout(root).servers;
}

export function socketPath(root: string): string {
  return stateLayout(root).daemonSocket;
}

export function configKey(config: DaemonTarget): string {
  return createHash('sha256').update(JSON.stringify(config)).digest('hex').slice(0, 16);
}
