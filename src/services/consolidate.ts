// Use case: fold a user's related active memories (episodic by default) into one semantic summary per group,
// citing its sources; the originals become `consolidated`. One commit.
import { UsageError } from '../errors.js';
import { assertUserId } from '../memory/ids.js';
import type { MemoryDoc, MemoryType } from '../memory/model.js';
import { commitMessage } from './core/commit-message.js';
import type { DepsUsing } from './core/deps.js';
import type { PurgeIndex } from './core/purge.js';
import { loadDoc } from './core/documents.js';
import { handEditsBefore } from './core/hand-edits.js';
import { writeLocked } from './write-locked.js';
import type { ManifestEntry } from './ports.js';
import { syncIndex } from './core/sync.js';
import { groupBySimilarity, meanVector } from './consolidate/group.js';
import { writeSummary, type WrittenSummary } from './consolidate/write-summary.js';

export interface ConsolidateInput {
  user: string;
  /** Default episodic. */
  type?: MemoryType;
  /** Cosine similarity for grouping (default from the configuration). */
  threshold?: number;
  /** Report the groups without writing anything. */
  dryRun?: boolean;
}

export interface ConsolidateResult {
  groups: { summary?: Omit<WrittenSummary, 'touched'>; members: { id: string; path: string }[] }[];
  dryRun: boolean;
}

/** Each memory's vector: the mean of its chunks' cached vectors (embedded again only if the cache lost them). */
async function vectorsOf(deps: DepsUsing<PurgeIndex>, entries: [string, ManifestEntry][]): Promise<Map<string, number[]>> {
  const lists = await deps.manifest.chunksOf(entries);
  const cached = await deps.cache.getMany([...lists.values()].flatMap((chunks) => chunks.map((c) => c.textHash)));
  const out = new Map<string, number[]>();
  for (const [path, e] of entries) {
    const chunks = lists.get(path) ?? [];
    const vectors = chunks.map((c) => cached.get(c.textHash)).filter((v): v is number[] => v !== undefined);
    if (vectors.length === chunks.length && vectors.length > 0) out.set(path, meanVector(vectors));
    else out.set(path, meanVector(await deps.embedder.embedDocuments([(await loadDoc(deps, path)).body.trim() || e.memoryId])));
  }
  return out;
}

export async function consolidateMemories(deps: DepsUsing<PurgeIndex>, input: ConsolidateInput): Promise<ConsolidateResult> {
  const user = assertUserId(input.user);
  const type = input.type ?? 'episodic';
  const threshold = input.threshold ?? deps.lifecycle.consolidateThreshold;
  if (!(threshold > 0 && threshold <= 1)) throw new UsageError('the threshold must be a number above 0 and at most 1');
  return writeLocked(deps, async () => {
    await syncIndex(deps);
    const now = deps.now();
    const manifest = (await deps.manifest.load()) ?? new Map<string, ManifestEntry>();
    const eligible = [...manifest]
      .filter(([, e]) => e.user === user && e.type === type && e.status === 'active' && (e.expires === undefined || e.expires > now.getTime()))
      // By path: deterministic, and memdir's ids start with their date.
      .sort((a, b) => a[0].localeCompare(b[0]));
    const vectors = await vectorsOf(deps, eligible);
    const groups = groupBySimilarity(
      eligible.map(([path, e]) => ({ id: e.memoryId, path, vector: vectors.get(path)! })),
      threshold,
    );
    if (input.dryRun || groups.length === 0) {
      return { dryRun: Boolean(input.dryRun), groups: groups.map((g) => ({ members: g.map(({ id, path }) => ({ id, path })) })) };
    }
    const handEdits = await handEditsBefore(deps.audit);
    const result: ConsolidateResult = { dryRun: false, groups: [] };
    const touched: string[] = [];
    for (const group of groups) {
      const docs: MemoryDoc[] = [];
      for (const m of group) docs.push(await loadDoc(deps, m.path));
      const written = await writeSummary(deps, user, docs, now);
      touched.push(...written.touched);
      const { touched: _t, ...summary } = written;
      result.groups.push({ summary, members: group.map(({ id, path }) => ({ id, path })) });
    }
    await syncIndex(deps, { only: touched });
    await deps.audit.commit(
      touched,
      await commitMessage(
        'CONSOLIDATE',
        { user, type, groups: String(result.groups.length), includes_uncommitted: handEdits(touched) },
        result.groups.map((g) => `summary: ${g.summary!.id} <- ${g.members.map((m) => m.id).join(', ')}`).join('\n'),
      ),
    );
    return result;
  });
}
