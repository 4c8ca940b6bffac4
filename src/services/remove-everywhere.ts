// Removing memories everywhere, shared by forget and gc: files, index rows (verified by a read), cached vectors,
// access statistics, and every derived memory (a consolidation summary) whose sources include a removed one.
import { IndexUnavailableError } from '../errors.js';
import { idList, type MemoryDoc } from '../memory/model.js';
import { writeSummary } from './consolidate/write-summary.js';
import type { DepsUsing } from './core/deps.js';
import { loadDoc } from './core/documents.js';
import { rewriteMemory } from './core/rewrite.js';
import { syncIndex, type SyncIndex } from './core/sync.js';
import { accessKey, type ManifestEntry, type IndexInventory } from './ports.js';

/** A removal deletes rows, syncs, then counts what is left to verify it. */
type RemovalDeps = DepsUsing<SyncIndex & IndexInventory>;

export interface Regenerated {
  /** The summary that cited a removed memory (it is removed too). */
  from: string;
  /** Its replacement, written from the remaining sources (two or more). */
  to?: string;
  /** Sources made active again because too few remained for a summary. */
  restored: string[];
}

export interface RemovalReport {
  removed: { id: string; path: string }[];
  regenerated: Regenerated[];
  /** Memories a removed one had superseded or consolidated (by memdir's back link), made active again. */
  restored: { id: string; path: string }[];
  /** Every path written or removed (for the one commit). */
  paths: string[];
}

/** Summaries citing a removed memory: rewritten from what remains, or dropped with their last source restored. */
async function regenerateDerived(
  deps: RemovalDeps,
  manifest: Map<string, ManifestEntry>,
  removedIds: Set<string>,
  removedPaths: Set<string>,
  now: Date,
): Promise<{ regenerated: Regenerated[]; alsoRemove: [string, ManifestEntry][]; touched: string[] }> {
  const byId = new Map([...manifest].map(([path, e]) => [e.memoryId, [path, e] as const]));
  const regenerated: Regenerated[] = [];
  const alsoRemove: [string, ManifestEntry][] = [];
  const touched: string[] = [];
  for (const [path, entry] of manifest) {
    if (removedPaths.has(path) || !entry.sources?.some((id) => removedIds.has(id))) continue;
    const remaining: MemoryDoc[] = [];
    for (const id of entry.sources.filter((s) => !removedIds.has(s))) {
      const found = byId.get(id);
      if (found && found[1].user === entry.user) remaining.push(await loadDoc(deps, found[0]));
    }
    alsoRemove.push([path, entry]);
    if (remaining.length >= 2) {
      const written = await writeSummary(deps, entry.user, remaining, now);
      touched.push(...written.touched);
      regenerated.push({ from: entry.memoryId, to: written.id, restored: [] });
    } else {
      for (const doc of remaining) {
        await rewriteMemory(deps, doc.path, (m) => {
          const { consolidated_into: _gone, ...rest } = m;
          return { ...rest, status: 'active', updated: now.toISOString() };
        });
        touched.push(doc.path);
      }
      regenerated.push({ from: entry.memoryId, restored: remaining.map((d) => d.meta.id) });
    }
  }
  return { regenerated, alsoRemove, touched };
}

/**
 * Memories whose back link (`superseded_by`, `consolidated_into`, written by memdir with their status) names a removed
 * memory: a back link to nothing would keep them out of search for good and be a dangling link for `mem doctor`.
 * Another memory still naming them takes the link over; else they are active again, as when a hand-written
 * correction is deleted. Paths the summaries' regeneration already rewrote are left alone.
 */
async function releaseBackLinks(
  deps: RemovalDeps,
  manifest: Map<string, ManifestEntry>,
  removedIds: Set<string>,
  skip: Set<string>,
  now: Date,
): Promise<{ restored: { id: string; path: string }[]; touched: string[] }> {
  const restored: { id: string; path: string }[] = [];
  const touched: string[] = [];
  const remaining = [...manifest].filter(([path, e]) => !skip.has(path) && !removedIds.has(e.memoryId));
  for (const [path, entry] of remaining) {
    const link =
      entry.supersededBy && removedIds.has(entry.supersededBy)
        ? 'superseded_by'
        : entry.consolidatedInto && removedIds.has(entry.consolidatedInto)
          ? 'consolidated_into'
          : null;
    if (!link) continue;
    const names = (e: ManifestEntry) => (link === 'superseded_by' ? idList(e.supersedes) : (e.sources ?? [])).includes(entry.memoryId);
    const heir = remaining.find(([, e]) => e.user === entry.user && names(e))?.[1].memoryId;
    await rewriteMemory(deps, path, (m) => {
      const { [link]: _gone, ...rest } = m;
      return heir ? { ...rest, [link]: heir } : { ...rest, status: 'active', updated: now.toISOString() };
    });
    touched.push(path);
    if (!heir) restored.push({ id: entry.memoryId, path });
  }
  return { restored: restored.sort((a, b) => a.id.localeCompare(b.id)), touched };
}

/** Must run under the write lock, after a sync. Does not commit: the caller makes one commit of `paths`. */
export async function removeEverywhere(
  deps: RemovalDeps,
  manifest: Map<string, ManifestEntry>,
  targets: [string, ManifestEntry][],
  options: { wholeUser?: string } = {},
): Promise<RemovalReport> {
  const removedIds = new Set(targets.map(([, e]) => e.memoryId));
  const derived = await regenerateDerived(deps, manifest, removedIds, new Set(targets.map(([p]) => p)), deps.now());
  const all = [...targets, ...derived.alsoRemove];
  const paths = all.map(([p]) => p);
  const released = await releaseBackLinks(deps, manifest, new Set(all.map(([, e]) => e.memoryId)), new Set([...paths, ...derived.touched]), deps.now());
  const touched = [...derived.touched, ...released.touched];
  // Read before the sync below removes the lists with the entries.
  const removedLists = await deps.manifest.chunksOf(all);
  for (const path of paths) await deps.files.remove(path);
  await deps.index.delete({ users: 'all', paths });
  // Forgetting a user also removes any row of theirs the manifest did not know about.
  if (options.wholeUser !== undefined) await deps.index.delete({ users: [options.wholeUser] });
  await syncIndex(deps, { only: [...paths, ...touched] });

  const after = (await deps.manifest.load()) ?? new Map<string, ManifestEntry>();
  const stillUsed = await deps.manifest.textHashes(after);
  await deps.cache.removeMany([...removedLists.values()].flatMap((chunks) => chunks.map((c) => c.textHash)).filter((h) => !stillUsed.has(h)));
  await deps.access.remove(all.map(([, e]) => accessKey(e.user, e.memoryId)));

  // Verify by reading back: a removal that left rows behind must not report success.
  const left = await deps.index.count({ users: 'all', paths });
  if (left > 0) throw new IndexUnavailableError(`removal left ${left} index rows behind for ${paths.join(', ')}; run \`mem reindex\``);
  return {
    removed: all.map(([path, e]) => ({ id: e.memoryId, path })),
    regenerated: derived.regenerated,
    restored: released.restored,
    paths: [...new Set([...paths, ...touched])],
  };
}
