// Opens an LMDB file of a root's state without ever making the root again: LMDB makes a missing folder itself,
// recursively, so a root deleted between memdir's checks and the open would come back holding only `.mem/`.
import { dirname } from 'node:path';

import type { RootDatabase, RootDatabaseOptionsWithPath } from 'lmdb';

import { makeStateFolderSync } from './state-dir.js';

/** lmdb (native addon and ~10 modules) is loaded by the first store opened: a no-op sync opens none. */
export const lmdb = () => import('lmdb');

/**
 * The file opened once its folder is made below the root, synchronously and in the same turn as the open: nothing
 * else runs between, so the folder LMDB finds is the one checked (a root gone fails with RootGoneError).
 */
export async function openLmdb(options: RootDatabaseOptionsWithPath & { path: string; noSubdir: true }): Promise<RootDatabase<Buffer, Buffer>> {
  const { open } = await lmdb();
  makeStateFolderSync(dirname(options.path));
  return open<Buffer, Buffer>(options);
}
