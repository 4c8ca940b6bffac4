// Purging what deletions leave behind under `.mem/`: index storage rewritten without the deleted rows (the server's
// compaction, or a rebuild of the collection from the files and the vector cache where the server cannot compact),
// then cached vectors (of both dense fields) and access statistics that no memory file uses any more.
import type { AccessStats, IndexStorage } from '../ports.js';
import { accessKey, type ManifestEntry } from '../ports.js';
import { syncIndex, type SyncDeps, type SyncIndex } from './sync.js';

/** A purge compacts index storage, or, where the server cannot, rebuilds it with a sync. */
export type PurgeIndex = SyncIndex & Pick<IndexStorage, 'compact'>;

export type PurgeDeps = SyncDeps & { index: PurgeIndex; access: AccessStats };

export interface PurgeReport {
  /** What happened to index storage: nothing was pending, the server compacted (or accepted to), or memdir rebuilt it. */
  index: 'clean' | 'compacted' | 'requested' | 'rebuilt';
  cachedVectorsRemoved: number;
  /** The second dense field's cached vectors removed, when the field is on. */
  secondVectorsRemoved?: number;
  accessRecordsRemoved: number;
}

/** Must run under the write lock, after a sync. `force` purges index storage even when no deletion was recorded. */
export async function purgeLocked(deps: PurgeDeps, options: { force?: boolean } = {}): Promise<PurgeReport> {
  let index: PurgeReport['index'] = 'clean';
  if (options.force || (await deps.residue.deletedSinceLastPurge())) {
    const how = await deps.index.compact();
    if (how === 'unsupported') {
      // Costs no embedding: every vector comes from the cache.
      await syncIndex(deps, { rebuild: true });
      index = 'rebuilt';
    } else {
      index = how;
    }
    // A remote compaction still running finishes on its own; nothing more memdir can do for it.
    await deps.residue.clearDeleted();
  }
  const manifest = (await deps.manifest.load()) ?? new Map<string, ManifestEntry>();
  const used = await deps.manifest.textHashes(manifest);
  const cachedVectorsRemoved = await deps.cache.retain(used);
  // Keyed by the same text hashes (core/second-vectors.ts).
  const secondVectorsRemoved = deps.secondCache ? await deps.secondCache.retain(used) : undefined;
  const accessRecordsRemoved = await deps.access.retain(new Set([...manifest.values()].map((e) => accessKey(e.user, e.memoryId))));
  return { index, cachedVectorsRemoved, ...(secondVectorsRemoved !== undefined ? { secondVectorsRemoved } : {}), accessRecordsRemoved };
}
