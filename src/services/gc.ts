// Use case: garbage-collect expired memories. Past their deadline they are marked `expired` in their files (they
// were already ineligible at read time); after the grace period they are removed everywhere. One commit.
import { assertUserId } from '../memory/ids.js';
import { commitMessage } from './core/commit-message.js';
import type { DepsUsing } from './core/deps.js';
import { handEditsBefore } from './core/hand-edits.js';
import type { ManifestEntry, IndexInventory } from './ports.js';
import { writeLocked } from './write-locked.js';
import { purgeLocked, type PurgeReport, type PurgeIndex } from './core/purge.js';
import { removeEverywhere, type Regenerated } from './remove-everywhere.js';
import { rewriteMemory } from './core/rewrite.js';
import { syncIndex } from './core/sync.js';

export interface GcInput {
  /** Only this user's memories. */
  user?: string;
  /** Report what would change without changing anything. */
  dryRun?: boolean;
}

export interface GcResult {
  /** Newly marked expired. */
  expired: { id: string; path: string }[];
  /** Removed after the grace period. */
  removed: { id: string; path: string }[];
  /**
   * Due for removal, but git does not hold the file as it is (written or edited by hand, not committed): removing it
   * would lose it for good. This gc marks it expired and commits it; a later one removes it, git keeping the copy.
   */
  kept: { id: string; path: string }[];
  regenerated: Regenerated[];
  dryRun: boolean;
  /** Bytes of deleted text purged from `.mem/`: this gc's removals and hand edits or deletions since the last purge. */
  purge?: PurgeReport;
}

export async function collectGarbage(deps: DepsUsing<PurgeIndex & IndexInventory>, input: GcInput = {}): Promise<GcResult> {
  if (input.user !== undefined) assertUserId(input.user);
  return writeLocked(deps, async () => {
    await syncIndex(deps);
    const now = deps.now();
    const manifest = (await deps.manifest.load()) ?? new Map<string, ManifestEntry>();
    const mine = [...manifest].filter(([, e]) => input.user === undefined || e.user === input.user);
    const due = (e: ManifestEntry, after: number) => e.expires !== undefined && e.expires + after <= now.getTime();
    const toMark = mine.filter(([, e]) => e.status === 'active' && due(e, 0) && !due(e, deps.lifecycle.gcGraceMs));
    const dueForRemoval = mine.filter(([, e]) => (e.status === 'active' || e.status === 'expired') && due(e, deps.lifecycle.gcGraceMs));
    // A file git does not hold as it is would be lost for good by its removal (a hand-written `expires:` in the past).
    const unsaved = new Set(dueForRemoval.length > 0 ? await deps.audit.uncommitted(dueForRemoval.map(([p]) => p)) : []);
    const toRemove = dueForRemoval.filter(([p]) => !unsaved.has(p));
    const toKeep = dueForRemoval.filter(([p]) => unsaved.has(p));
    const list = (entries: [string, ManifestEntry][]) => entries.map(([path, e]) => ({ id: e.memoryId, path }));
    if (input.dryRun) return { expired: list(toMark), removed: list(toRemove), kept: list(toKeep), regenerated: [], dryRun: true };

    const marked = [...toMark, ...toKeep];
    // One `git status` of the root (~0.4 s at 50,000 files), only when this gc writes something.
    const handEdits = marked.length + toRemove.length > 0 ? await handEditsBefore(deps.audit) : () => undefined;
    for (const [path] of marked) await rewriteMemory(deps, path, (m) => ({ ...m, status: 'expired' }));
    if (marked.length > 0) await syncIndex(deps, { only: marked.map(([p]) => p) });
    const report =
      toRemove.length > 0 ? await removeEverywhere(deps, (await deps.manifest.load()) ?? manifest, toRemove) : { removed: [], regenerated: [], paths: [] };
    const paths = [...new Set([...marked.map(([p]) => p), ...report.paths])];
    await deps.audit.commit(
      paths,
      await commitMessage(
        'GC',
        {
          user: input.user,
          expired: String(toMark.length),
          removed: String(report.removed.length),
          // Files it rewrote (marked expired, back links, summaries' sources), not the ones it removed.
          includes_uncommitted: handEdits(paths.filter((p) => !report.removed.some((r) => r.path === p))),
        },
        [
          ...toMark.map(([p, e]) => `expired: ${e.memoryId} (${p})`),
          ...report.removed.map((r) => `removed: ${r.id} (${r.path})`),
          ...toKeep.map(([p, e]) => `kept: ${e.memoryId} (${p}): not committed before, removed by a later gc`),
        ].join('\n'),
      ),
    );
    // Hand deletions and edits only mark index rows deleted; their text stays in index storage until this purge.
    const purge = await purgeLocked(deps, { force: report.removed.length > 0 });
    return { expired: list(toMark), removed: report.removed, kept: list(toKeep), regenerated: report.regenerated, dryRun: false, purge };
  });
}
