// The layout of a memory root, in one place: where a memory's file goes (`<user>/<type>/<name>.md`), which
// folders never hold memories, and what lives under the private state folder `.mem/`. Pure: builds paths only.
import { join } from 'node:path';

import type { MemoryType } from './model.js';

/** The root's private state folder: never committed, never scanned. */
export const STATE_DIR = '.mem';

/** Folders that never hold memories: VCS data, our own state, dependency trees. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set(['.git', STATE_DIR, 'node_modules']);

/** Where a memory written by memdir goes, relative to the root (forward slashes); `name` is usually its id. */
export function memoryPath(user: string, type: MemoryType, name: string): string {
  return `${user}/${type}/${name}.md`;
}

/** Absolute paths of everything memdir keeps under a root's `.mem/`. */
export interface StateLayout {
  /** `.mem/` itself (also the folder of the write lock and the access-stats lock). */
  dir: string;
  /** The manifest of one (index, model) pair. */
  manifest(scope: string): string;
  /** Cached vectors of one embedding model. */
  vectors(modelKey: string): string;
  /** Access statistics (last access per memory). */
  access: string;
  /** Records, logs and sockets of the local servers and the search daemon. */
  servers: string;
  /** Milvus Lite's data folder. */
  milvusData: string;
  /** The search daemon's Unix socket and log. */
  daemonSocket: string;
  daemonLog: string;
}

export function stateLayout(root: string): StateLayout {
  const dir = join(root, STATE_DIR);
  const servers = join(dir, 'servers');
  return {
    dir,
    manifest: (scope) => join(dir, `manifest-${scope}.json`),
    vectors: (modelKey) => join(dir, 'vectors', modelKey.replace(/[^A-Za-z0-9._-]+/g, '_')),
    access: join(dir, 'access.json'),
    servers,
    milvusData: join(dir, 'milvus'),
    daemonSocket: join(servers, 'memd.sock'),
    daemonLog: join(servers, 'memd.log'),
  };
}
