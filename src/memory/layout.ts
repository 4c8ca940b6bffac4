// The layout of a memory root, in one place: where a memory's file goes (`<user>/<type>/<name>.md`), which
// folders never hold memories, and what lives under the private state folder `.mem/`. Pure: builds paths only.
import { join } from 'node:path';

import type { MemoryType } from './model.js';

/** The root's private state folder: never committed, never scanned. */
export const STATE_DIR = '.mem';

/** Folders that never hold memories: VCS data, our own state, dependency trees. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set(['.git', STATE_DIR, 'node_modules']);

/**
 * Whether a file name can be a memory file: Markdown, and not an editor's lock file (Emacs keeps `.#x.md`, a dangling
 * symlink, while a buffer has unsaved changes). Other editors' temp, swap and backup files do not end in `.md`.
 */
export function isMemoryFileName(name: string): boolean {
  return name.toLowerCase().endsWith('.md') && !name.startsWith('.#');
}

/**
 * Whether a folder with these entries may hold a memory file: one of a memory's name, or a folder the scan enters. A
 * root holding only its state folder (where a hook logs) and git's files has none, so nothing asks its index.
 */
export function mayHoldMemories(entries: readonly { name: string; isDirectory(): boolean }[]): boolean {
  return entries.some((e) => (e.isDirectory() ? !SKIPPED_DIRS.has(e.name) : isMemoryFileName(e.name)));
}

/** Where a memory written by memdir goes, relative to the root (forward slashes); `name` is usually its id. */
export function memoryPath(user: string, type: MemoryType, name: string): string {
  return `${user}/${type}/${name}.md`;
}

/** Absolute paths of everything memdir keeps under a root's `.mem/` (or where a read-only root's state lives). */
export interface StateLayout {
  /** `.mem/` itself (also the folder of the write lock and the access-stats lock). */
  dir: string;
  /** The manifest of one (index, model) pair. */
  manifest(scope: string): string;
  /** Cached vectors of one embedding model. */
  vectors(modelKey: string): string;
  /** Access statistics (last access per memory). */
  access: string;
  /** The write in progress (its files' before-state), so one killed midway is settled by the next writer. */
  pendingWrite: string;
  /** Present while index rows were deleted but their bytes not yet purged from index storage. */
  purgePending: string;
  /** The root's identity: names its collection in the shared Milvus Lite, and moves with the root. */
  rootId: string;
  /** Agent hooks: capture cursors, the hook log, the background capture's output. */
  hooks: string;
  hookLog: string;
  captureOutput: string;
  /** What `mem integrate` wrote into an agent's configuration, to undo it exactly. */
  integrations: string;
}

export function stateLayout(root: string): StateLayout {
  return stateLayoutAt(join(root, STATE_DIR));
}

/** The same layout in a state folder given directly (a read-only root keeps it under the runtime home). */
export function stateLayoutAt(dir: string): StateLayout {
  return {
    dir,
    manifest: (scope) => join(dir, `manifest-${scope}.json`),
    vectors: (modelKey) => join(dir, 'vectors', modelKey.replace(/[^A-Za-z0-9._-]+/g, '_')),
    access: join(dir, 'access.json'),
    pendingWrite: join(dir, 'pending-write.json'),
    purgePending: join(dir, 'purge-pending'),
    rootId: join(dir, 'root-id'),
    hooks: join(dir, 'hooks'),
    hookLog: join(dir, 'hooks', 'log.jsonl'),
    captureOutput: join(dir, 'hooks', 'capture.out'),
    integrations: join(dir, 'integrations'),
  };
}

/** What the shared local servers of one user keep under the server home (by default the runtime home). */
export interface ServerLayout {
  /** Records (0600), logs and start locks of the shared servers: an owner-only folder. */
  servers: string;
  /** One file per root served (its collection, root and state folder): `mem server status` lists them. */
  roots: string;
  /** One file per memdir process using the servers (named by its pid): the servers do not idle-stop under it. */
  leases: string;
  /**
   * One file per search daemon of this home (named by its pid), written by the process that starts it and removed when
   * it exits: `mem server stop` finds a daemon still starting, before its socket answers.
   */
  daemons: string;
  /** The shared Milvus Lite's data folder (a collection per root under `collections/`). */
  milvusData: string;
}

export function serverLayout(home: string): ServerLayout {
  const servers = join(home, 'servers');
  return { servers, roots: join(servers, 'roots'), leases: join(servers, 'leases'), daemons: join(servers, 'daemons'), milvusData: join(home, 'milvus') };
}
