// Opens an LMDB file of a root's state without ever making the root again: LMDB makes a missing folder itself,
// recursively, so a root deleted between memdir's checks and the open would come back holding only `.mem/`.
import { rmSync, rmdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

import type { RootDatabase, RootDatabaseOptionsWithPath } from 'lmdb';

import { STATE_DIR } from '../../memory/layout.js';
import { inodeOf } from './inode.js';
import { makeStateFolderSync, rootGone, rootOfState } from './state-dir.js';

/** lmdb (native addon and ~10 modules) is loaded by the first store opened: a no-op sync opens none. */
export const lmdb = () => import('lmdb');

/**
 * The file opened once its folder is made below the root, synchronously and in the same turn as the open, so none of
 * this process's work runs between. Another process's `rm -rf` still can, for the microseconds between: the root is
 * then a new folder (another inode) that LMDB made, which is closed and taken away again before RootGoneError.
 */
export async function openLmdb(options: RootDatabaseOptionsWithPath & { path: string; noSubdir: true }): Promise<RootDatabase<Buffer, Buffer>> {
  const { open } = await lmdb();
  const folder = dirname(options.path);
  const root = rootOfState(folder);
  const before = root === undefined ? -1 : inodeOf(root);
  makeStateFolderSync(folder);
  const db = open<Buffer, Buffer>(options);
  if (root !== undefined && inodeOf(root) !== before) {
    await db.close();
    rmSync(join(root, STATE_DIR), { recursive: true, force: true });
    // Only when nothing else is in it: a folder someone put at the path since is theirs.
    try {
      rmdirSync(root);
    } catch {
      // not empty, or gone already
    }
    throw rootGone(root);
  }
  return db;
}
