// Use case: bring the index in step with the files (only what changed), or rebuild it from them.
import type { DepsUsing } from './core/deps.js';
import type { PurgeIndex } from './core/purge.js';
import { writeLocked } from './write-locked.js';
import type { Progress } from './ports.js';
import { syncIndex, type ReindexReport } from './core/sync.js';

export interface ReindexOptions {
  /** Drop the index and rebuild it from the files (cached vectors are reused). */
  rebuild?: boolean;
  progress?: Progress;
}

/** A reindex writes: it first settles a write that a killed process left unfinished (see core/interrupted-write.ts). */
export async function reindex(deps: DepsUsing<PurgeIndex>, options: ReindexOptions = {}): Promise<ReindexReport> {
  return writeLocked(deps, () => syncIndex(deps, options));
}
