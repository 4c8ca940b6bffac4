// Use case: find a user's eligible memories for a query. Eligibility is a filter (user, active,
// unexpired); candidate units (paragraphs, list items, turns) come from dense and BM25 retrieval, fused,
// lifted by the best context window containing them (windows are searched the same way, never
// returned) and by a date the query names (neighbour, file and section priors are options, off by default),
// optionally reranked, then rescored with recency and importance, one result per memory (ranked by its best
// units together) or per unit, and access statistics are updated.
import { errorMessage, UsageError } from '../errors.js';
import { assertUserId } from '../memory/ids.js';
import { hasLapsed } from '../memory/lifecycle.js';
import type { MemoryStatus, MemoryType } from '../memory/model.js';
import { NO_EXPIRY } from '../memory/records.js';
import type { DepsUsing } from './core/deps.js';
import type { SyncIndex } from './core/sync.js';
import { successors } from './core/links.js';
import { accessKey, type IndexHit, type IndexScope, type IndexSearcher, type LineSpan } from './ports.js';
import { DEFAULT_FUSION, fuseCandidates, type FusedCandidate, type Fusion } from './retrieval/fuse.js';
import { DEFAULT_DATE_SHARE, queryPeriods, withPeriods } from './retrieval/dates.js';
import { DEFAULT_NAME_SHARE, withNames } from './retrieval/names.js';
import { askSecond, DEFAULT_SECOND_SHARE, withSecondDense } from './retrieval/second-dense.js';
import { DEFAULT_CONTEXT, withContext } from './retrieval/neighbours.js';
import { DEFAULT_PRIOR, withSectionPrior } from './retrieval/prior.js';
import { DEFAULT_RERANK_DEPTH, rerankRanked, type Ranked } from './retrieval/rerank.js';
import { DEFAULT_DIVERSITY, diversify } from './retrieval/diversity.js';
import { DEFAULT_FILE_SCORE, fileRelevances } from './retrieval/file-score.js';
import { NO_TUNING, type RankingTuning } from './retrieval/tuning.js';
import { blendScore } from './retrieval/rescore.js';
import { retrievalText } from './retrieval/rewrite.js';
import { excerptOf, ownText, type Excerpt } from './retrieval/excerpt.js';
import { fileUnitsReader, type FileUnits } from './retrieval/file-units.js';
import { DEFAULT_EXPAND, DEFAULT_WINDOW_SHARE, spanOf, unseenUnits, withWindows } from './retrieval/windows.js';
import { DEFAULT_WINDOW_TERM, SECOND_WINDOW_TERM, withWindowTerm } from './retrieval/window-term.js';
import { DEFAULT_SECTION_NEIGHBOUR, withSectionNeighbours } from './retrieval/section-neighbours.js';
import { ensureIndexed, openIndexed } from './core/ensure-indexed.js';
import { AHEAD_UNITS, AHEAD_WINDOWS, later, readAhead } from './retrieval/while-waiting.js';

export type SearchMode = 'hybrid' | 'dense' | 'bm25';

export interface SearchInput {
  query: string;
  /** Required unless allUsers is set explicitly. */
  user?: string;
  allUsers?: boolean;
  types?: MemoryType[];
  tags?: string[];
  k?: number;
  mode?: SearchMode;
  fusion?: Fusion;
  /** Send the best results to the configured reranker and rewrite the query with the configured model (default true; only when configured). */
  rerank?: boolean;
  rewrite?: boolean;
  /** Blend in recency and importance (default true); false ranks by relevance alone. */
  rescore?: boolean;
  /** One result per memory (default), or one per unit (the row: a paragraph, list item or turn). */
  unit?: 'memory' | 'chunk';
  /** Record this search in the access statistics (default true). */
  track?: boolean;
  /** The time eligibility and recency are judged at (default: now). */
  at?: Date;
  /** Also superseded, consolidated and expired memories (still only the user's), each marked by its status. */
  history?: boolean;
}

export interface ScoreComponents {
  relevance: number;
  /** Cosine similarity of the best chunk, when dense retrieval found it. */
  dense?: number;
  /** BM25 score of the best chunk, when BM25 found it. */
  bm25?: number;
  /** Cosine similarity on the second dense field, when one is configured and found the chunk. */
  second?: number;
  /** The reranker's score in [0, 1] (then the relevance), when a reranker is configured and answered. */
  rerank?: number;
  /** Fused relevance of the best context window containing the unit, when a window search found one. */
  window?: number;
  recency: number;
  importance: number;
}

export interface SearchResult {
  id: string;
  path: string;
  user: string;
  type: MemoryType;
  status: string;
  importance: number;
  created: string;
  updated: string;
  expires?: string;
  tags: string[];
  heading: string;
  lines: [number, number];
  content: string;
  score: number;
  scores: ScoreComponents;
  /** Why this memory was allowed into the results. */
  eligibility: string;
  /** With history: the memory that superseded or consolidated this one (from either file's links). */
  replacedBy?: string;
  /** Per memory: the file's best-scoring units (best first), so a block can show what ranked rather than all of the excerpt. */
  hits?: UnitHit[];
}

/** One unit of a memory-level result's file that the search scored: its lines, own text (no heading prefix) and score. */
export interface UnitHit {
  lines: [number, number];
  heading: string;
  content: string;
  score: number;
}

/** What a search ranked without: the second dense field, when its model did not answer (why, and what to do). */
export interface SearchDegraded {
  second: string;
}

/** The results, best first; `degraded` says what the ranking had to do without (absent: everything answered). */
export type SearchResults = SearchResult[] & { degraded?: SearchDegraded };

/** Longer queries are refused: the model reads about 2,000 characters, and embedding costs grow with length. */
export const MAX_QUERY_CHARS = 2_000;

// Candidates per signal before fusion: room for rescoring and for merging chunks into memories.
const MIN_CANDIDATES = 40;

export function eligibilityScope(input: SearchInput, now: Date): IndexScope {
  if (!input.allUsers && !input.user) throw new UsageError('a search needs --user (or --all-users, explicitly)');
  if (input.allUsers && input.user !== undefined) throw new UsageError('give either a user or all users, not both');
  return {
    users: input.allUsers ? 'all' : [assertUserId(input.user!)],
    ...(input.history ? {} : { statuses: ['active'] as MemoryStatus[], notExpiredAt: now.getTime() }),
    ...(input.types?.length ? { types: input.types } : {}),
    ...(input.tags?.length ? { tags: input.tags } : {}),
  };
}

/** Defence in depth: a hit the index filter should have excluded is dropped here too. */
function isEligible(hit: IndexHit, scope: IndexScope): boolean {
  const r = hit.record;
  if (scope.users !== 'all' && !scope.users.includes(r.user)) return false;
  if (scope.statuses && !scope.statuses.includes(r.status)) return false;
  if (scope.notExpiredAt !== undefined && r.expires <= scope.notExpiredAt) return false;
  if (scope.types && !scope.types.includes(r.type)) return false;
  if (scope.tags && !scope.tags.some((t) => r.tags.includes(t))) return false;
  return true;
}

function eligibilityNote(r: IndexHit['record'], at: Date): string {
  const expiry = r.expires >= NO_EXPIRY ? 'never expires' : `expires ${new Date(r.expires).toISOString()}`;
  return `user ${r.user}, status ${r.status}, ${expiry} (checked at ${at.toISOString()})`;
}

function validate(input: SearchInput): number {
  const k = input.k ?? 8;
  if (!Number.isInteger(k) || k < 1 || k > 200) throw new UsageError('k must be a whole number from 1 to 200');
  if (!input.query.trim()) throw new UsageError('the query is empty');
  if (input.query.length > MAX_QUERY_CHARS) {
    throw new UsageError(`the query is ${input.query.length} characters long; at most ${MAX_QUERY_CHARS} are allowed (shorten it to what you are looking for)`);
  }
  return k;
}

// The units per memory-level result a caller is told about: about every candidate a file has at the default k.
const MAX_HITS = 16;

/** Each file's scored units, best first, at most MAX_HITS. */
function unitHits(scored: Ranked[]): Map<string, UnitHit[]> {
  const hits = new Map<string, UnitHit[]>();
  for (const { c, parts } of [...scored].sort((a, b) => b.parts.score - a.parts.score)) {
    const r = c.hit.record;
    const list = hits.get(r.path) ?? [];
    if (list.length < MAX_HITS) list.push({ lines: [r.lineStart, r.lineEnd], heading: r.heading, content: ownText(r), score: parts.score });
    hits.set(r.path, list);
  }
  return hits;
}

/** How many lines around a memory-level result's best unit its excerpt may draw on. */
const EXCERPT_LINES = 80;

type Row = IndexHit['record'];

/**
 * The units inside each row's span: from the row's file while it still holds the row as indexed, else one
 * index query for the spans of the others (at most `perSpan` units each, `cap` in all).
 */
async function unitsIn(
  deps: { index: IndexSearcher },
  scope: IndexScope,
  rows: Row[],
  span: (r: Row) => LineSpan,
  readUnits: FileUnits,
  perSpan: number,
  cap = Infinity,
): Promise<Row[]> {
  const fromFiles = await Promise.all(rows.map(readUnits));
  const asked = rows.filter((_, i) => !fromFiles[i]).map(span);
  const queried = asked.length > 0 ? await deps.index.unitsWithin(scope, asked, Math.min(cap, asked.length * perSpan)) : [];
  const within = (s: LineSpan) => (u: Row) => u.lineStart >= s.lineStart && u.lineEnd <= s.lineEnd;
  return [...rows.flatMap((r, i) => fromFiles[i]?.filter(within(span(r))) ?? []), ...queried];
}

/** A memory-level result's excerpt draws on the units up to EXCERPT_LINES either side of its best unit. */
const aroundOf = (r: Row): LineSpan => ({ path: r.path, lineStart: Math.max(0, r.lineStart - EXCERPT_LINES), lineEnd: r.lineEnd + EXCERPT_LINES });

const secondDegraded = (err: unknown) =>
  `the second dense field (MEM_SECOND_MODEL) did not answer, so these results are ranked by BM25 and the first dense field alone: ${errorMessage(err)}`;

/** The text retrieval searches for (the query, or it with its rewrite) and its vector (none for BM25 alone). */
interface AskedQuery {
  text: Promise<string>;
  vector: Promise<number[]> | null;
}

/**
 * Asks for the query's text and vector at once: neither depends on the index, so the model works while the search
 * checks the index (a manifest's stat and read, each a few ms on a busy machine). A failure is the search's when it
 * awaits them, after the index checks, as before.
 */
function askQuery(deps: DepsUsing<IndexSearcher>, input: SearchInput): AskedQuery {
  const text = retrievalText(input.rewrite === false ? undefined : deps.rewriter, input.query);
  const vector = (input.mode ?? 'hybrid') === 'bm25' ? null : text.then((t) => deps.embedder.embedQuery(t));
  // Handled here too: a search whose index check fails never awaits them.
  vector?.catch(() => undefined);
  return { text, vector };
}

async function retrieve(
  deps: DepsUsing<IndexSearcher>,
  input: SearchInput,
  asked: AskedQuery,
  tuning: RankingTuning,
  scope: IndexScope,
  limit: number,
  at: Date,
  readUnits: FileUnits,
  onDegraded: (degraded: SearchDegraded) => void,
): Promise<FusedCandidate[]> {
  const mode = input.mode ?? 'hybrid';
  const text = await asked.text;
  const share = tuning.windows ?? DEFAULT_WINDOW_SHARE;
  const queryVector = asked.vector;
  const none = Promise.resolve([] as IndexHit[]);
  const dense = (kind: 'unit' | 'window') =>
    queryVector ? queryVector.then((v) => deps.index.search({ mode: 'dense', scope, queryVector: v, limit, kind })) : none;
  const bm25 = (kind: 'unit' | 'window') => (mode === 'dense' ? none : deps.index.search({ mode: 'bm25', scope, queryText: text, limit, kind }));
  const signals = (kind: 'unit' | 'window') => [dense(kind), bm25(kind)] as const;
  // The second dense field: one more request, units only, in parallel with the others; when its model
  // does not answer, the search ranks without it and says so (retrieval/second-dense.ts).
  const secondShare = deps.second && mode === 'hybrid' ? (tuning.second ?? DEFAULT_SECOND_SHARE) : 0;
  const secondHits = secondShare > 0 ? askSecond(deps.second!, text, (v) => deps.index.search({ mode: 'second', scope, queryVector: v, limit })) : null;
  const unitLists = signals('unit');
  const windowLists = share > 0 ? signals('window') : ([none, none] as const);
  const keep = (hits: IndexHit[]) => hits.filter((h) => isEligible(h, scope));
  // What needs only the query, and the files of the best lexical hits, while the dense answers are awaited: once the
  // query's vector is in, not before (the model's threads have the cores until then; the index's server needs one).
  const periods = later(() => ((tuning.dates ?? DEFAULT_DATE_SHARE) > 0 ? queryPeriods(input.query, at) : []));
  let denseIn = false;
  if (queryVector && mode === 'hybrid') {
    Promise.all([unitLists[1], windowLists[1], queryVector]).then(
      ([u, w]) =>
        readAhead(
          readUnits,
          [...keep(u).slice(0, AHEAD_UNITS), ...keep(w).slice(0, AHEAD_WINDOWS)].map((h) => h.record),
          () => denseIn,
        ),
      () => undefined, // the search's own await reports it
    );
  }
  const [units, windows, second] = await Promise.all([Promise.all(unitLists), Promise.all(windowLists), secondHits]).finally(() => (denseIn = true));
  const seconds = second && 'hits' in second ? second.hits : [];
  if (second && 'failed' in second) onDegraded({ second: secondDegraded(second.failed) });
  const answered = second !== null && 'hits' in second;
  const fusion = {
    ...(deps.fusion ?? DEFAULT_FUSION),
    ...(answered && deps.secondDenseWeight !== undefined ? { denseWeight: deps.secondDenseWeight } : {}),
    ...(input.fusion ? { fusion: input.fusion } : {}),
    ...(tuning.denseWeight !== undefined ? { denseWeight: tuning.denseWeight } : {}),
  };
  // A window's relevance is on the units' scale, whose floor the units alone set: normalised apart, the only window
  // of a small scope would score 1 however poorly it matched; normalised together, a scope's few windows (returned
  // for any query) would stretch the units' scale downwards and lift their own units into the top places.
  const byScore = (a: IndexHit, b: IndexHit) => b.score - a.score;
  const all = fuseCandidates(keep(units[0]).sort(byScore), keep(units[1]).sort(byScore), fusion, {
    dense: keep(windows[0]).sort(byScore),
    bm25: keep(windows[1]).sort(byScore),
  });
  const fused = withSecondDense(
    all.filter((c) => c.hit.record.kind !== 'window'),
    keep(seconds),
    answered ? secondShare : 0,
  );
  // A window below every unit's match lends nothing (its relevance is 0), so it brings in no units either.
  const windowHits = all.filter((c) => c.hit.record.kind === 'window' && c.relevance > 0);
  const spans = windowHits.map(spanOf);
  // A unit that matches nothing itself (the reply after the question) still joins through its best windows.
  const top = windowHits.slice(0, tuning.expand ?? DEFAULT_EXPAND).map((c) => c.hit.record);
  const extra =
    top.length > 0
      ? unseenUnits(
          fused,
          (await unitsIn(deps, scope, top, (w) => w, readUnits, 8)).filter((r) => isEligible({ record: r, score: 0 }, scope)),
        )
      : [];
  const term = tuning.windowTerm ?? (answered ? SECOND_WINDOW_TERM : DEFAULT_WINDOW_TERM);
  const windowed = withWindowTerm(withWindows([...fused, ...extra], spans, share), spans, term);
  // Where no window reaches (a section per turn), a unit borrows from the unit beside it instead.
  const lifted = withSectionNeighbours(windowed, tuning.sectionNeighbour ?? DEFAULT_SECTION_NEIGHBOUR);
  // Names and dates first, so a unit's neighbours lend it their lifted relevance.
  const named = withPeriods(withNames(lifted, input.query, tuning.names ?? DEFAULT_NAME_SHARE), await periods, tuning.dates ?? DEFAULT_DATE_SHARE);
  return withContext(withSectionPrior(named, tuning.prior ?? DEFAULT_PRIOR), tuning.context ?? DEFAULT_CONTEXT);
}

/** Searching reads the index only, but a root's first search indexes it first (ensureIndexed). */
export type SearchIndex = SyncIndex & IndexSearcher;

/**
 * `tuning` moves the ranking's knobs off their defaults: for the benchmarks that measure each signal (the library's
 * callers leave it out).
 */
export async function searchMemories(deps: DepsUsing<SearchIndex>, input: SearchInput, tuning: RankingTuning = NO_TUNING): Promise<SearchResults> {
  const k = validate(input);
  const at = input.at ?? deps.now();
  const scope = eligibilityScope(input, at);
  const asked = askQuery(deps, input);
  // First use of a root (no manifest yet): index it, so a fresh clone's first search finds the samples.
  await ensureIndexed(deps);
  await openIndexed(deps);

  const unit = input.unit ?? 'memory';
  // The expansion and the excerpts read the same few files: each is read and parsed once per search.
  const readUnits = fileUnitsReader(deps);
  let degraded: SearchDegraded | undefined;
  const limit = Math.max(tuning.candidates ?? MIN_CANDIDATES, k * 5);
  const candidates = await retrieve(deps, input, asked, tuning, scope, limit, at, readUnits, (d) => (degraded = d));
  const access =
    input.rescore === false || tuning.recordedAccess === false
      ? new Map()
      : await deps.access.get(candidates.map((c) => accessKey(c.hit.record.user, c.hit.record.memoryId)));

  const partsOf = (relevance: number, c: FusedCandidate) => {
    const r = c.hit.record;
    const touched = Math.max(r.updated, access.get(accessKey(r.user, r.memoryId))?.lastAccessed ?? 0);
    return input.rescore === false
      ? { relevance, recency: 0, importance: r.importance, score: relevance }
      : blendScore(relevance, touched, r.importance, at.getTime(), deps.scoring[r.type]);
  };
  const scored: Ranked[] = candidates.map((c) => ({ c, parts: partsOf(c.relevance, c) }));
  const best = new Map<string, Ranked>();
  for (const s of scored) {
    const r = s.c.hit.record;
    // One result per file: two files that (wrongly) share an id stay two results, and sync reports the clash.
    const key = unit === 'chunk' ? r.chunkId : r.path;
    const seen = best.get(key);
    if (!seen || s.parts.score > seen.parts.score) best.set(key, s);
  }
  // Per memory, a file is ranked by its best units together (retrieval/file-score.ts), not by its best alone.
  const files = unit === 'memory' ? fileRelevances(candidates, tuning.files ?? DEFAULT_FILE_SCORE) : null;
  const ranked = [...best.values()]
    .map((s) => (files ? { ...s, parts: partsOf(files.get(s.c.hit.record.path)!, s.c) } : s))
    .sort((a, b) => b.parts.score - a.parts.score);
  const reranker = input.rerank === false ? undefined : deps.reranker;
  const reranked = await rerankRanked(reranker, input.query, ranked, Math.max(k, deps.rerankDepth ?? DEFAULT_RERANK_DEPTH), (rel, t) => partsOf(rel, t.c));
  // Only reorders: one result per file makes every result its own section, so it matters most per unit.
  const top = diversify(reranked, k, input.query, tuning.diversity ?? DEFAULT_DIVERSITY).slice(0, k);
  if (input.track !== false && top.length > 0) {
    deps.access.touch([...new Set(top.map((t) => accessKey(t.c.hit.record.user, t.c.hit.record.memoryId)))], at.getTime());
  }
  // The chain, for a history search that returns memories taken out of search by a link.
  const replaced =
    input.history && top.some((t) => t.c.hit.record.status !== 'active') ? successors((await deps.manifest.load()) ?? new Map()) : new Map<string, string>();
  // A memory-level result shows its best unit with the neighbouring units of its section (read from its file),
  // so a short memory reads whole and a turn of a log keeps the lines around it.
  const nearby =
    unit === 'chunk' || top.length === 0
      ? []
      : await unitsIn(
          deps,
          scope,
          top.map((t) => t.c.hit.record),
          aroundOf,
          readUnits,
          128,
          16_384,
        );
  // Per memory, the units the search scored, so a context block can show what ranked rather than a whole excerpt.
  const hitsOf = unit === 'memory' ? unitHits(scored) : new Map<string, UnitHit[]>();
  const results: SearchResults = top.map(({ c, parts, rerank }) => {
    const r = c.hit.record;
    const shown: Excerpt = unit === 'chunk' ? { content: r.content, lines: [r.lineStart, r.lineEnd] } : excerptOf(r, nearby, deps.chunking.maxChars);
    const replacedBy = replaced.get(r.path);
    return {
      id: r.memoryId,
      path: r.path,
      user: r.user,
      type: r.type,
      // With history a lapsed memory is returned too: marked expired, as status, list and show count it before `mem gc` does.
      status: r.status === 'active' && hasLapsed(r.expires, at.getTime()) ? 'expired' : r.status,
      importance: r.importance,
      created: new Date(r.created).toISOString(),
      updated: new Date(r.updated).toISOString(),
      ...(r.expires < NO_EXPIRY ? { expires: new Date(r.expires).toISOString() } : {}),
      tags: r.tags,
      heading: r.heading,
      lines: shown.lines,
      content: shown.content,
      score: parts.score,
      scores: {
        relevance: parts.relevance,
        ...(c.dense !== undefined ? { dense: c.dense } : {}),
        ...(c.bm25 !== undefined ? { bm25: c.bm25 } : {}),
        ...(c.second !== undefined ? { second: c.second } : {}),
        ...(rerank !== undefined ? { rerank } : {}),
        ...(c.window !== undefined ? { window: c.window } : {}),
        recency: parts.recency,
        importance: parts.importance,
      },
      eligibility: eligibilityNote(r, at),
      ...(replacedBy ? { replacedBy } : {}),
      ...(hitsOf.has(r.path) ? { hits: hitsOf.get(r.path)! } : {}),
    };
  });
  if (degraded) results.degraded = degraded;
  return results;
}
