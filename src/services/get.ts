// Use case: read one memory by id, within a user's scope when one is given.
import { NotFoundError } from '../errors.js';
import { assertMemoryId, assertUserId } from '../memory/ids.js';
import type { MemoryDeps } from './deps.js';
import { findPath, loadDoc, toRecord, type MemoryRecord } from './documents.js';
import { sameId } from './duplicates.js';
import { syncIndex } from './sync.js';

export interface GetInput {
  id: string;
  /** When set, a memory of another user is reported as not found (its existence is not revealed). */
  user?: string;
}

export async function getMemory(deps: MemoryDeps, input: GetInput): Promise<MemoryRecord> {
  const id = assertMemoryId(input.id);
  if (input.user !== undefined) assertUserId(input.user);
  // Only the caller's memories are looked at: another user's file with the same id is neither found nor a clash.
  let path = await findPath(deps, id, input.user);
  if (path === undefined) {
    // A file written by hand since the last sync is still found.
    await syncIndex(deps);
    path = await findPath(deps, id, input.user);
  }
  const notFound = () => new NotFoundError(`no memory with id ${id}${input.user !== undefined ? ` for user ${input.user}` : ''}`);
  if (path === undefined) throw notFound();
  const record = toRecord(await loadDoc(deps, path));
  if (!sameId(record.id, id) || (input.user !== undefined && record.user !== input.user)) throw notFound();
  return record;
}
