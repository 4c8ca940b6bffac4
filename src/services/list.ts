// Use case: one user's memories, newest first, read from the files (after a sync, so hand edits count).
import { UsageError } from '../errors.js';
import { assertUserId } from '../memory/ids.js';
import { hasLapsed } from '../memory/lifecycle.js';
import { MEMORY_STATUSES, type MemoryStatus, type MemoryType } from '../memory/model.js';
import type { DepsUsing } from './core/deps.js';
import type { SyncIndex } from './core/sync.js';
import { loadDoc, toRecord, type MemoryRecord } from './core/documents.js';
import { ensureIndexed } from './core/ensure-indexed.js';

export interface ListInput {
  user: string;
  types?: MemoryType[];
  /** Default: active only. */
  statuses?: MemoryStatus[];
  /** At most this many (default 50, up to 1000). */
  limit?: number;
}

export interface ListResult {
  memories: MemoryRecord[];
  /** How many matched before the limit. */
  total: number;
}

export async function listMemories(deps: DepsUsing<SyncIndex>, input: ListInput): Promise<ListResult> {
  assertUserId(input.user);
  const limit = input.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('limit must be a whole number from 1 to 1000');
  for (const s of input.statuses ?? []) if (!MEMORY_STATUSES.includes(s)) throw new UsageError(`status must be one of ${MEMORY_STATUSES.join(', ')}`);
  // Every call: a list shows the files as they are now, hand edits included.
  await ensureIndexed(deps, 'current');
  const statuses = input.statuses ?? ['active'];
  // An active memory past its expiry is ineligible at once, as in search (before `mem gc` marks its file): it is
  // listed as expired, never as active. So the active files are read when expired ones are asked for too.
  const read: MemoryStatus[] = statuses.includes('expired') ? [...statuses, 'active'] : statuses;
  const now = deps.now().getTime();
  const entries = [...((await deps.manifest.load()) ?? new Map())].filter(
    ([, e]) => e.user === input.user && read.includes(e.status) && (!input.types?.length || input.types.includes(e.type)),
  );
  const records: MemoryRecord[] = [];
  for (const [path, entry] of entries) {
    // A file removed since the sync is simply not listed.
    const doc = await loadDoc(deps, path).catch(() => null);
    if (!doc || doc.meta.user !== input.user) continue;
    const lapsed = entry.status === 'active' && hasLapsed(doc.meta.expires, now);
    const status: MemoryStatus = lapsed ? 'expired' : entry.status;
    if (statuses.includes(status)) records.push(lapsed ? { ...toRecord(doc), status } : toRecord(doc));
  }
  records.sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : a.id.localeCompare(b.id)));
  return { memories: records.slice(0, limit), total: records.length };
}
