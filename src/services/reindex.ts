// Use case: bring the index in step with the files (only what changed), or rebuild it from them.
import type { MemoryDeps } from './core/deps.js';
import { writeLocked } from './core/interrupted-write.js';
import { syncIndex, type ReindexReport } from './core/sync.js';
import type { Progress } from './ports.js';

export interface ReindexOptions {
  /** Drop the index and rebuild it from the files (cached vectors are reused). */
  rebuild?: boolean;
  progress?: Progress;
}

export async function reindex(deps: MemoryDeps, options: ReindexOptions = {}): Promise<ReindexReport> {
  // A reindex writes: it settles a write a killed process left unfinished before syncing.
  return writeLocked(deps, () => syncIndex(deps, options));
}
