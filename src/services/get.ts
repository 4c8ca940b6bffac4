// Use case: read one memory by id, within a user's scope when one is given.
import { NotFoundError } from '../errors.js';
import { assertMemoryId, assertUserId } from '../memory/ids.js';
import type { DepsUsing } from './core/deps.js';
import type { SyncIndex } from './core/sync.js';
import { manifestEntries, loadDoc, toRecord, withIndexedStatus, type MemoryRecord } from './core/documents.js';
import { resolveId, sameId } from './core/duplicates.js';
import { ensureIndexed } from './core/ensure-indexed.js';

export interface GetInput {
  id: string;
  /** When set, a memory of another user is reported as not found (its existence is not revealed). */
  user?: string;
}

export async function getMemory(deps: DepsUsing<SyncIndex>, input: GetInput): Promise<MemoryRecord> {
  const id = assertMemoryId(input.id);
  if (input.user !== undefined) assertUserId(input.user);
  await ensureIndexed(deps);
  // Only the caller's memories are looked at: another user's file with the same id is neither found nor a clash.
  let entries = await manifestEntries(deps);
  let path = await resolveId(deps, entries, id, input.user);
  if (path === undefined) {
    // A file written by hand since the last sync is still found.
    await ensureIndexed(deps, 'current');
    entries = await manifestEntries(deps);
    path = await resolveId(deps, entries, id, input.user);
  }
  const notFound = () => new NotFoundError(`no memory with id ${id}${input.user !== undefined ? ` for user ${input.user}` : ''}`);
  if (path === undefined) throw notFound();
  const record = withIndexedStatus(toRecord(await loadDoc(deps, path)), entries.get(path));
  if (!sameId(record.id, id) || (input.user !== undefined && record.user !== input.user)) throw notFound();
  return record;
}
