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

/**
 * Opens the index for a read. When the manifest was not written for the collection there now (it was dropped and
 * an empty one created in its place: the servers' data deleted, a collection dropped by hand), syncs first, which
 * indexes every file again from the vector cache, so the read finds the memories instead of nothing.
 */
export async function openIndexed(deps: SyncDeps): Promise<void> {
  const instance = await deps.index.open(deps.embedder.identity);
  if (instance === undefined) return; // a collection from before instance ids: nothing to compare
  const bound = await deps.manifest.indexInstance();
  if (bound === instance || !(await deps.manifest.exists())) return;
  // Opened before another process rebuilt the collection (a purge), this index may remember the old id: ask again.
  if ((await deps.index.open(deps.embedder.identity, { recheck: true })) === bound) return;
  await syncIndex(deps, { checkIndex: true });
}
