// Use case: read one memory by id, within a user's scope when one is given.
import { NotFoundError } from '../errors.js';
import { assertMemoryId, assertUserId } from '../memory/ids.js';
import type { MemoryDeps } from './core/deps.js';
import { findPath, loadDoc, toRecord, type MemoryRecord } from './core/documents.js';
import { ensureIndexed } from './core/ensure-indexed.js';

export interface GetInput {
  id: string;
  /** When set, a memory of another user is reported as not found (its existence is not revealed). */
  user?: string;
}

export async function getMemory(deps: MemoryDeps, input: GetInput): Promise<MemoryRecord> {
  const id = assertMemoryId(input.id);
  if (input.user !== undefined) assertUserId(input.user);
  await ensureIndexed(deps);
  let path = await findPath(deps, id);
  if (path === undefined) {
    // A file written by hand since the last sync is still found.
    await ensureIndexed(deps, 'current');
    path = await findPath(deps, id);
  }
  const notFound = () => new NotFoundError(`no memory with id ${id}${input.user !== undefined ? ` for user ${input.user}` : ''}`);
  if (path === undefined) throw notFound();
  const record = toRecord(await loadDoc(deps, path));
  if (record.id !== id || (input.user !== undefined && record.user !== input.user)) throw notFound();
  return record;
}
