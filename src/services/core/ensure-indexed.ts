// The one rule for reads that write: a use case that reads the index or the manifest first calls
// ensureIndexed, so the sync a read may start is a visible step of that use case, not a side effect.
import { syncIndex, type SyncDeps } from './sync.js';

/**
 * 'first-use': a root never indexed (no manifest) is indexed first, so a fresh clone's first read finds its files.
 * 'current': an incremental sync in any case, so files written by hand since the last sync count too
 * (unchanged files are skipped by size and mtime).
 */
export type Freshness = 'first-use' | 'current';

export async function ensureIndexed(deps: SyncDeps, freshness: Freshness = 'first-use'): Promise<void> {
  if (freshness === 'current' || !(await deps.manifest.exists())) await syncIndex(deps);
}
