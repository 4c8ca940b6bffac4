// The end of a `mem sync` once git is done, and what the next command does with a sync that was killed: the index
// follows the incoming commits, and what they deleted (a forget made elsewhere) leaves this machine's state too.
import type { DepsUsing } from '../core/deps.js';
import { purgeLocked, type PurgeReport, type PurgeIndex } from '../core/purge.js';
import { syncIndex, type ReindexReport } from '../core/sync.js';
import type { MemoryRepository, SyncRecord, TreeChanges } from '../ports.js';

export interface FinishedSync {
  changes: TreeChanges;
  index: ReindexReport;
  /** How index storage, the vector cache and the access statistics were rid of what the incoming commits deleted. */
  purge?: PurgeReport;
}

export type SyncDepsWithRepo = DepsUsing<PurgeIndex> & { repository: MemoryRepository };

/** Must run under the write lock, with a record in phase 'index'. */
export async function finishSync(deps: SyncDepsWithRepo, record: SyncRecord): Promise<FinishedSync> {
  const repo = deps.repository;
  const changes = record.to ? await repo.changes(record.from ?? null, record.to) : { added: [], changed: [], deleted: [] };
  // A rewritten history: the old commits, which alone held the purged text, go from this clone's object store.
  if (record.rewritten) await repo.prune(record.remote);
  // Every file, not only the incoming ones: cheap (unchanged files are skipped by size and time), and it also
  // indexes what the person had left uncommitted and unindexed.
  const index = await syncIndex(deps);
  // As a local forget: rows deleted above leave index storage, and unused cached vectors and statistics go.
  const purge = changes.deleted.length > 0 || record.rewritten ? await purgeLocked(deps, { force: true }) : undefined;
  await repo.endSync();
  return { changes, index, ...(purge ? { purge } : {}) };
}

/**
 * Must run under the write lock. A sync killed while git was busy (mid-merge, before its push) is put back as it
 * found the repository; one killed once git was done is finished (index and purge). Null when none was left.
 */
export async function settleInterruptedSync(deps: DepsUsing<PurgeIndex>): Promise<'rolled-back' | 'finished' | null> {
  const repo = deps.repository;
  const record = repo ? await repo.pendingSync() : null;
  if (!repo || !record) return null;
  if (record.phase === 'index') {
    await finishSync({ ...deps, repository: repo }, record);
    return 'finished';
  }
  await repo.restore(record);
  await repo.endSync();
  return 'rolled-back';
}
