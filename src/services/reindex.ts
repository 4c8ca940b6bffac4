// Use case: bring the index in step with the files (only what changed), or rebuild it from them.
import type { Progress } from './ports.js';
import { syncIndex, type ReindexReport, type SyncDeps } from './core/sync.js';

export interface ReindexOptions {
  /** Drop the index and rebuild it from the files (cached vectors are reused). */
  rebuild?: boolean;
  progress?: Progress;
}

export async function reindex(deps: SyncDeps, options: ReindexOptions = {}): Promise<ReindexReport> {
  return syncIndex(deps, options);
}
