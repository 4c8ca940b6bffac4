// Checks the memory root before a command opens it: a file, a mistyped path or a read-only folder is
// told as such, before any server is started for it (and before a read creates a folder nobody asked for).
import { accessSync, constants, statSync } from 'node:fs';

import { MemError, UsageError } from '../errors.js';

/** A root that exists but cannot be written: a command that writes cannot run there. */
export class ReadOnlyRootError extends MemError {
  override readonly code = 'READ_ONLY_ROOT';
}

export type RootUse =
  /** Creates the root if it is missing (add, ingest, mcp, setup, server start). */
  | 'create'
  /** Needs an existing root and writes to it or to its state folder (reindex, forget, gc, …). */
  | 'write'
  /** Needs an existing root. */
  | 'read';

export function checkRoot(root: string, use: RootUse): void {
  let isDir: boolean;
  try {
    isDir = statSync(root).isDirectory();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'ENOTDIR') throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') throw new UsageError(`memory root ${root}: a part of this path is a file, not a folder`);
    if (use === 'create') return;
    throw new UsageError(`no memory root at ${root} (check --root or $MEM_ROOT; \`mem add\` creates a new one)`);
  }
  if (!isDir) throw new UsageError(`memory root ${root} is a file, not a folder (--root names the folder of memory files)`);
  if (use === 'read') return;
  try {
    accessSync(root, constants.W_OK);
  } catch {
    throw new ReadOnlyRootError(`memory root ${root} is read-only: this command writes to it`);
  }
}
