// The search daemon's wire format and where it lives: one JSON request and one JSON response per
// connection, over a Unix socket in an owner-only runtime folder (never a TCP port: no other user can reach it).
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { MemError } from '../../errors.js';

/** Bumped when the request or response shape changes; a daemon of another version is not used. */
export const PROTOCOL_VERSION = 2;

export interface DaemonRequest {
  version: number;
  /** The client's configuration but its root, hashed: a daemon started under other settings must not answer. */
  configKey: string;
  /**
   * search: `input` in `root`; index: one call of `root`'s index (an IndexCall: a `mem` process's small write, through
   * the daemon's loaded client); release: close `root` (`mem server stop`); ping: the daemon's pid and open roots; stop: exit.
   */
  op: 'search' | 'index' | 'ping' | 'stop' | 'release';
  /** Absolute path of the root, as the client's configuration resolved it (search and release). */
  root?: string;
  input?: unknown;
}

export type DaemonResponse =
  /**
   * warming (ping): warm-up searches still to run, 0 once every open root's users are warm (daemon/warm-up.ts).
   * identities (ping): each opened root's identity (its root id) as it was when opened: a path's collection of an
   * older id (the root replaced on disk) is not the one the daemon has open. Absent from daemons before it.
   */
  | {
      ok: true;
      results?: unknown;
      degraded?: unknown;
      pid?: number;
      roots?: string[];
      serverHome?: string;
      released?: boolean;
      warming?: number;
      identities?: Record<string, string>;
      /** search with `context` in its input: the results' context block, secrets masked (daemon/request.ts). */
      context?: string;
    }
  | { ok: false; error: { code: string; message: string; exitCode: number } }
  /** Not for this client (other version or settings, or a root it cannot serve), or the daemon lost its servers: search in-process. */
  | { ok: false; declined: true };

/** The index methods a client may call through the daemon: what a small sync or `mem add` needs, nothing that scans every row. */
export const INDEX_METHODS = ['open', 'upsert', 'insert', 'deleteChunks', 'deleteStale', 'delete', 'flush', 'search', 'unitsWithin', 'count'] as const;
export type IndexMethod = (typeof INDEX_METHODS)[number];

/**
 * One call of a root's index (op `index`). `location` is the client's own index (server address and collection): a
 * daemon whose index of the root is another one declines. Vectors travel as base64 of their float32 bytes (the
 * precision Milvus stores), about a third of their JSON text and no float parsing.
 */
export interface IndexCall {
  location: string;
  method: IndexMethod;
  args: unknown[];
}

/** A vector as base64 of its little-endian float32 bytes. */
export function encodeVector(vector: ArrayLike<number>): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
  return bytes.toString('base64');
}

/** The vector of encodeVector's text, or null when it is not one (not base64 of whole float32s). */
export function decodeVector(text: string): number[] | null {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length % 4 !== 0 || bytes.toString('base64') !== text) return null;
  const floats = new Float32Array(bytes.length / 4);
  for (let i = 0; i < floats.length; i++) floats[i] = bytes.readFloatLE(i * 4);
  return Array.from(floats);
}

/** What a daemon and its clients know of the configuration: the root, the socket folder, the servers' home, and the whole of it to hash. */
export interface DaemonTarget {
  root: string;
  /** Owner-only folder of daemon sockets (MemConfig.socketDir). */
  socketDir: string;
  /** Home of the shared servers (MemConfig.serverHome): one daemon per home, like the servers. */
  serverHome: string;
}

/** The owner-only socket folder, created if needed; one that another user owns or others can enter is refused. */
export function socketFolder(target: Pick<DaemonTarget, 'socketDir'>): string {
  const dir = target.socketDir;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  const uid = process.getuid?.();
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0) {
    throw new MemError(`${dir} is not a folder that only this user can use: no search daemon`);
  }
  return dir;
}

/**
 * The socket of the daemon serving every root under this configuration (and beside it, `.log`: its log), named by
 * the configuration's key: one daemon per user and servers' home, and a separate one for roots searched under
 * other settings (e.g. another embedder or MILVUS_URI), since those open other servers and models. Not under a root:
 * that may be read-only, and a Unix socket path holds at most 107 bytes. The caller searches without a daemon when
 * the folder is not safe.
 */
export function socketPath(target: DaemonTarget): string {
  return join(socketFolder(target), `memd-${configKey(target)}.sock`);
}

/** The configuration without its root, hashed: roots searched with the same settings share a daemon. */
export function configKey(config: DaemonTarget): string {
  const { root: _root, ...settings } = config;
  return createHash('sha256').update(JSON.stringify(settings)).digest('hex').slice(0, 16);
}
