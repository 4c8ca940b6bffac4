// A root's identity in the shared Milvus Lite: a random id kept in its state folder, so the root's collection
// follows the root when it is moved on disk, while a copy of the root (same id, original still in place) gets its own.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

import writeFileAtomic from 'write-file-atomic';

import { MemError } from '../../errors.js';
import type { ServerLayout, StateLayout } from '../../memory/layout.js';
import { stateLayoutAt } from '../../memory/layout.js';
import { ensureStateDir } from '../state/state-dir.js';
import { readRootEntry } from './root-registry.js';

const ID = /^[0-9a-f]{16}$/;

async function readId(file: string): Promise<string | null> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const id = text.trim();
  return ID.test(id) ? id : null;
}

/** The collection name of a root id (letters, digits and underscores, as Milvus wants). */
export const collectionOf = (id: string): string => `memdir_${id}`;

/**
 * The root's collection name, minting the id on first use. `minted` is true when this root had an id that another,
 * still existing root holds (it was copied): its index must be built anew under the new name. `created` is true when
 * this call wrote the root's first id: a new root, or one whose `.mem/` was deleted (an older id may have a collection).
 */
export async function rootCollection(
  layout: StateLayout,
  root: string,
  servers: ServerLayout,
): Promise<{ collection: string; minted: boolean; created: boolean }> {
  await ensureStateDir(layout.dir);
  const known = await readId(layout.rootId);
  const { id, created } = known ? { id: known, created: false } : await firstId(layout.rootId);
  const entry = await readRootEntry(servers, collectionOf(id));
  const copied = entry !== null && entry.root !== root && existsSync(entry.stateDir) && (await readId(stateLayoutAt(entry.stateDir).rootId)) === id;
  if (!copied) return { collection: collectionOf(id), minted: false, created };
  const fresh = randomBytes(8).toString('hex');
  await writeFileAtomic(layout.rootId, `${fresh}\n`, { mode: 0o600 });
  return { collection: collectionOf(fresh), minted: true, created };
}

/**
 * The root's first id: several processes opening a new root at once (ten `mem add`, a watch and a search) must all
 * take the same one, so only the first creates the file (exclusively) and the others read what it wrote.
 */
async function firstId(file: string): Promise<{ id: string; created: boolean }> {
  const mine = randomBytes(8).toString('hex');
  try {
    await writeFile(file, `${mine}\n`, { flag: 'wx', mode: 0o600 });
    return { id: mine, created: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  // Created by another process, which may not have written it yet.
  for (let i = 0; i < 100; i++) {
    const theirs = await readId(file);
    if (theirs) return { id: theirs, created: false };
    await sleep(20);
  }
  throw new MemError(`${file} does not hold a root id (16 hex digits): delete it and run the command again`);
}
