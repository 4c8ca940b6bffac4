// The LoCoMo benchmark (`npm run bench:locomo`): ingests LoCoMo conversations through the normal sync path and measures evidence
// retrieval for each ablation of the read path, in two layouts (one heading per turn, and `mem
// ingest`'s day logs) and two scopes (one user per conversation, or all conversations in one user).
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import {
  formatContext,
  NO_CONTEXT,
  NO_DIVERSITY,
  openMemory,
  parseMemory,
  searchMemories,
  stopLocalServers,
  toChunkRecords,
  type ChunkOptions,
  type Embedder,
  type MemConfig,
  type MemoryDeps,
  type RankingTuning,
  type ReindexReport,
  type SearchInput,
  type SearchResult,
} from '../../dist/internal.js';
import { loadLocomo, type Conversation, type Question } from './dataset.js';
import { sessionMarkdown, sessionPath, turnOfHeading, userOf } from './ingest.js';
import { conversationLogs, turnsOfLines, type LogFile } from './ingest-log.js';
import { ADVERSARIAL, computeMetrics, type Metrics, type QuestionOutcome } from './metrics.js';
import { BUDGETS, budgetFigures, turnsInside, type BudgetFigures, type BudgetOutcome } from './budget.js';
import { mcpAnswer, mcpFigures, type McpFigures, type McpOutcome } from './mcp-answer.js';

/**
 * An ablation's figures: recall of the ranked list, what the context block holds at each budget ("500", ...), and what
 * the MCP search tool's answer holds.
 */
export type AblationMetrics = Metrics & { budget: Record<string, BudgetFigures>; mcp: McpFigures };

/** `mem search --format context`'s own search: one result per memory, its default k. */
const CONTEXT_K = 8;

/** A row of the table: the search's own mode, fusion and rescoring, and the ranking's knobs moved off their defaults. */
export type AblationSettings = Pick<SearchInput, 'mode' | 'fusion' | 'rescore'> & { tuning?: RankingTuning };

// Every signal the default adds over hybrid fusion with rescoring, off: the windows (and the units they bring in), the
// neighbours across one-unit sections (and theirs), the dates the query names and the spread over files. (The second dense field, when
// MEM_SECOND_MODEL sets one, counts as part of the fusion.)
const PLAIN: RankingTuning = { context: NO_CONTEXT, names: 0, dates: 0, windows: 0, expand: 0, sectionNeighbour: 0, diversity: NO_DIVERSITY };
const RESCORED = { mode: 'hybrid', fusion: 'weighted', rescore: true } as const;

// The rows that answer a question still open: the default; what it adds over hybrid with rescoring alone; each of
// its signals switched off on its own (what that signal is worth now); and each retriever alone.
export const ABLATIONS: Record<string, AblationSettings> = {
  bm25: { mode: 'bm25', rescore: false, tuning: PLAIN },
  dense: { mode: 'dense', rescore: false, tuning: PLAIN },
  // Reciprocal rank fusion, as memsearch fuses (`npm run bench:memsearch -- --locomo` compares the two on it).
  'hybrid-rrf': { mode: 'hybrid', fusion: 'rrf', rescore: false, tuning: PLAIN },
  'hybrid+rescore': { ...RESCORED, tuning: PLAIN },
  'default-windows': { ...RESCORED, tuning: { windows: 0, expand: 0 } },
  'default-expand': { ...RESCORED, tuning: { expand: 0 } },
  'default-neighbours': { ...RESCORED, tuning: { sectionNeighbour: 0 } },
  'default-dates': { ...RESCORED, tuning: { dates: 0 } },
  'default-rescore': { ...RESCORED, rescore: false },
  'default-second': { ...RESCORED, tuning: { second: 0 } },
  'default-window-term': { ...RESCORED, tuning: { windowTerm: 0 } },
  'default-diversity': { ...RESCORED, tuning: { diversity: NO_DIVERSITY } },
  default: { ...RESCORED },
};

const STATE =
  "ranked from the state this run's indexing left: these searches record no access, and access recorded by earlier searches of the work folder is ignored (recency counts from each memory's own date)";

const SEARCHED_BEFORE = 'ranked after every question was asked once as `mem search` asks it: recency counts from the access those searches recorded';

/** turns: one `## D3:7 Speaker` section per turn (no user's memory looks like it); ingest: `mem ingest`'s day logs. */
export type Layout = 'ingest' | 'turns';
export const LAYOUTS: Layout[] = ['ingest', 'turns'];
/** conversation: one user scope per conversation; pooled: all of them in one user's scope. */
export type Scope = 'conversation' | 'pooled';

export interface LocomoOptions {
  data: string;
  /** Results per question (the depth of MRR and of session ranking). */
  k: number;
  /** Reuse this folder as the memory root between runs (keeps the vector cache); else a temporary one. */
  workDir?: string;
  ablations?: string[];
  /** The first is the one reported under `ablations`; default: ingest, then turns. */
  layouts?: Layout[];
  /** Also search all conversations in one scope. */
  pooled?: boolean;
  /**
   * Index file by file, one sync per file written, as a memory grows day by day (the default is one
   * bulk sync of everything): Milvus Lite computes BM25 statistics per segment, so the two can rank apart.
   */
  incremental?: boolean;
  /**
   * What recorded access does in use: before measuring, each question is asked once as `mem search` asks it (one
   * result per memory, k 8, its access recorded), and the ranking then reads that access. Off: the state indexing left.
   */
  searchedBefore?: boolean;
  /**
   * The context-block budgets measured (default 500, 1,200, 2,000): several close together show how much of a
   * difference between two blocks is which unit happens to fit at one budget.
   */
  budgets?: number[];
  onProgress?: (message: string) => void;
}

export interface LocomoReport {
  data: string;
  conversations: number;
  k: number;
  /** The layout `ablations` was measured on (one user per conversation). */
  layout: Layout;
  /** chunks: index rows, of which units and windows; texts: the distinct texts they embed (each embedded once). */
  index: Pick<ReindexReport, 'files' | 'chunks' | 'embedded' | 'errors'> & { seconds: number; units: number; windows: number; texts: number };
  ablations: Record<string, AblationMetrics>;
  /** What the ranking started from: the state this run's indexing left, whatever earlier searches recorded. */
  state: string;
  /** Every layout and scope measured, keyed "ingest/conversation", "turns/pooled", ... */
  runs: Record<string, Record<string, AblationMetrics>>;
}

function memoQueries(embedder: Embedder): Embedder {
  const seen = new Map<string, Promise<number[]>>();
  return {
    identity: embedder.identity,
    embedDocuments: (texts) => embedder.embedDocuments(texts),
    embedQuery: (text) => {
      let vector = seen.get(text);
      if (!vector) seen.set(text, (vector = embedder.embedQuery(text)));
      return vector;
    },
  };
}

/** Writes a file only when its content differs, so a reused work folder re-embeds nothing; true when written. */
async function writeIfChanged(path: string, text: string): Promise<boolean> {
  const current = await readFile(path, 'utf8').catch(() => null);
  if (current === text) return false;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return true;
}

/** Questions the benchmark scores: categories 1-4 with at least one evidence turn. */
export function scoredQuestions(conversation: Conversation) {
  return conversation.questions.filter((q) => q.category >= 1 && q.category <= 4 && q.evidence.length > 0);
}

/** Category 5 questions with evidence: reported on their own, never in the totals. */
export function adversarialQuestions(conversation: Conversation) {
  return conversation.questions.filter((q) => q.category === ADVERSARIAL && q.evidence.length > 0);
}

// The user ids of the layouts and scopes; all share one root, so texts embedded once serve every one.
const POOLED_USER: Record<Layout, string> = { turns: 'pooled', ingest: 'pooled.log' };
const userFor = (layout: Layout, scope: Scope, conv: Conversation) =>
  scope === 'pooled' ? POOLED_USER[layout] : layout === 'turns' ? userOf(conv) : `${userOf(conv)}.log`;

/** How each written file maps a result back to conversation-qualified turn ids ("conv-26/D3:7"). */
type FileMap = Map<string, { conv: string; log?: LogFile }>;

async function writeLayouts(
  root: string,
  conversations: Conversation[],
  layouts: Layout[],
  scopes: Scope[],
  afterWrite: () => Promise<void> = async () => {},
): Promise<FileMap> {
  const files: FileMap = new Map();
  for (const layout of layouts) {
    for (const scope of scopes) {
      for (const conv of conversations) {
        const user = userFor(layout, scope, conv);
        if (layout === 'turns') {
          const pooled = scope === 'pooled' ? user : undefined;
          for (const session of conv.sessions) {
            const path = sessionPath(conv, session, pooled);
            if (await writeIfChanged(join(root, path), sessionMarkdown(conv, session, pooled))) await afterWrite();
            files.set(path, { conv: conv.id });
          }
        } else {
          // A pooled scope shares day files between conversations: keep them apart by a folder each.
          for (const log of conversationLogs(conv, user)) {
            const path = scope === 'pooled' ? log.path.replace(`${user}/episodic/`, `${user}/episodic/${userOf(conv)}/`) : log.path;
            const text = scope === 'pooled' ? log.text.replace(/^id: .*$/m, `id: ${path.replace(/\.md$/, '')}`) : log.text;
            if (await writeIfChanged(join(root, path), text)) await afterWrite();
            files.set(path, { conv: conv.id, log });
          }
        }
      }
    }
  }
  return files;
}

/** What the index holds for the written files: rows by kind, and distinct embedded texts. */
async function rowsOf(root: string, files: FileMap, chunking: ChunkOptions): Promise<{ units: number; windows: number; texts: number }> {
  const out = { units: 0, windows: 0, texts: 0 };
  const texts = new Set<string>();
  for (const path of files.keys()) {
    const doc = parseMemory(await readFile(join(root, path), 'utf8'), { path, defaultUser: 'x', fallbackTime: '2024-01-01T00:00:00Z' });
    for (const r of toChunkRecords(doc, chunking)) {
      out[r.kind === 'unit' ? 'units' : 'windows']++;
      texts.add(r.textHash);
    }
  }
  return { ...out, texts: texts.size };
}

/** Ranked turn ids of a result list: a chunk stands for every turn it covers, each taking a place. */
export function rankedTurnsOf(results: Pick<SearchResult, 'path' | 'heading' | 'lines'>[], files: FileMap): string[] {
  const out: string[] = [];
  for (const r of results) {
    const file = files.get(r.path);
    if (!file) continue;
    const ids = file.log ? turnsOfLines(file.log.turns, r.lines[0], r.lines[1]) : [turnOfHeading(r.heading)].filter((t): t is string => t !== null);
    for (const id of ids) {
      const q = `${file.conv}/${id}`;
      if (!out.includes(q)) out.push(q);
    }
  }
  return out;
}

export async function runLocomo(base: MemConfig, options: LocomoOptions): Promise<LocomoReport> {
  const log = options.onProgress ?? (() => {});
  const conversations = await loadLocomo(options.data);
  const root = options.workDir ?? (await mkdtemp(join(tmpdir(), 'memdir-locomo-')));
  const config: MemConfig = { ...base, root, git: false };
  const layouts = options.layouts ?? LAYOUTS;
  const scopes: Scope[] = options.pooled ? ['conversation', 'pooled'] : ['conversation'];
  // Each question is embedded once and reused by every ablation: the vector does not depend on them.
  // The search goes through the wired dependencies: the ablations tune the ranking, which the library API does not offer.
  let deps: MemoryDeps | undefined;
  const memory = await openMemory(config, { onLog: log, wrapEmbedder: memoQueries, onDeps: (d) => (deps = d) });
  try {
    log(
      `indexing ${conversations.length} conversations (${layouts.join(', ')}; ${scopes.join(', ')}) in ${root}${options.incremental ? ', file by file' : ''}`,
    );
    const started = performance.now();
    let syncs = 0;
    const files = await writeLayouts(root, conversations, layouts, scopes, async () => {
      if (!options.incremental) return;
      await memory.reindex();
      if (++syncs % 20 === 0) log(`${syncs} files synced one by one`);
    });
    const indexed = await memory.reindex();
    const seconds = (performance.now() - started) / 1000;
    const rows = await rowsOf(root, files, { maxChars: config.chunkMaxChars, ...(config.chunkWindow !== undefined ? { window: config.chunkWindow } : {}) });
    const names = options.ablations ?? Object.keys(ABLATIONS);
    const runs: LocomoReport['runs'] = {};
    // Judge recency the day after the last session (of any conversation when pooled), as an agent would.
    const lastOf = (convs: Conversation[]) => Math.max(...convs.map((c) => Date.parse(c.sessions[c.sessions.length - 1]?.date ?? '2024-01-01T00:00:00Z')));
    const pooledAt = new Date(lastOf(conversations) + 86_400_000);
    const atOf = (scope: Scope, conv: Conversation) => (scope === 'pooled' ? pooledAt : new Date(lastOf([conv]) + 86_400_000));
    const turnText = new Map<string, string>(
      conversations.flatMap((c) => c.sessions.flatMap((s) => s.turns.map((t) => [`${c.id}/${t.dia_id}`, t.text] as const))),
    );
    const questionsOf = (conv: Conversation): Question[] => [...scoredQuestions(conv), ...adversarialQuestions(conv)];
    // Every question embedded before any search is timed: else the first ablation pays each query's embedding and the
    // others find it memoised, and their in-process times do not compare (the embedding's own cost is not in them).
    // Each one timed alone, one request at a time, as a search asks it: a search as a user waits for it costs about
    // its embedding plus its in-process time (less where the embedding overlaps the first index requests).
    const embeddingMs = new Map<string, number>();
    for (const conv of conversations)
      for (const q of questionsOf(conv)) {
        if (embeddingMs.has(q.question)) continue;
        const t0 = performance.now();
        await deps!.embedder.embedQuery(q.question);
        embeddingMs.set(q.question, performance.now() - t0);
      }
    for (const layout of layouts) {
      for (const scope of scopes) {
        if (options.searchedBefore) {
          log(`${layout}/${scope}: asking every question once as \`mem search\` does, recording access`);
          for (const conv of conversations)
            for (const q of questionsOf(conv)) {
              await memory.search({ query: q.question, user: userFor(layout, scope, conv), at: atOf(scope, conv) });
              // Each search's record written before the next: a busy lock would skip one (access is best effort).
              await deps!.access.settle();
            }
        }
        const ablations: Record<string, AblationMetrics> = {};
        for (const name of names) {
          const settings = ABLATIONS[name];
          if (!settings) throw new Error(`unknown ablation ${name}`);
          const outcomes: QuestionOutcome[] = [];
          const blocks: BudgetOutcome[] = [];
          const answers: McpOutcome[] = [];
          for (const conv of conversations) {
            const at = atOf(scope, conv);
            const questions = questionsOf(conv);
            for (const q of questions) {
              const t0 = performance.now();
              const { tuning, ...search } = settings;
              // Never recorded; ranked by what earlier searches of the work folder recorded only when asked to
              // (searchedBefore): else the figures are those of the state this run's indexing left.
              const results = await searchMemories(
                deps!,
                { query: q.question, user: userFor(layout, scope, conv), k: options.k, unit: 'chunk', track: false, at, ...search },
                { ...tuning, recordedAccess: options.searchedBefore === true },
              );
              const latencyMs = performance.now() - t0;
              outcomes.push({
                category: q.category,
                evidence: q.evidence.map((e) => `${conv.id}/${e}`),
                rankedTurns: rankedTurnsOf(results, files),
                latencyMs,
                queryEmbeddingMs: embeddingMs.get(q.question) ?? 0,
                conversation: conv.id,
              });
              if (q.category === ADVERSARIAL) continue;
              // The block the agent reads: `mem search --format context --budget N` over the same ranking.
              const user = userFor(layout, scope, conv);
              const memories = await searchMemories(
                deps!,
                { query: q.question, user, k: CONTEXT_K, track: false, at, ...search },
                { ...tuning, recordedAccess: options.searchedBefore === true },
              );
              const evidence = q.evidence.map((e) => `${conv.id}/${e}`);
              const inside: BudgetOutcome['inside'] = {};
              for (const budget of options.budgets ?? BUDGETS) {
                const block = formatContext(memories, user, budget, { query: q.question });
                inside[budget] = { turns: turnsInside(block.text, evidence, (t) => turnText.get(t)), tokens: block.tokens };
              }
              blocks.push({ evidence, inside });
              // The MCP search tool's answer: its default k is the block's search's (8), the block at the tool's default budget.
              answers.push(mcpAnswer(user, q.question, memories, evidence, (t) => turnText.get(t)));
            }
          }
          ablations[name] = { ...computeMetrics(outcomes), budget: budgetFigures(blocks, options.budgets), mcp: mcpFigures(answers) };
          log(
            `${layout}/${scope} ${name}: turn R@10 ${ablations[name]!.turn['recall@10'].toFixed(3)}, session R@5 ${ablations[name]!.session['recall@5'].toFixed(3)}`,
          );
        }
        runs[`${layout}/${scope}`] = ablations;
      }
    }
    return {
      data: options.data,
      conversations: conversations.length,
      k: options.k,
      layout: layouts[0]!,
      state: options.searchedBefore ? SEARCHED_BEFORE : STATE,
      index: { files: indexed.files, chunks: indexed.chunks, embedded: indexed.embedded, errors: indexed.errors, seconds, ...rows },
      ablations: runs[`${layouts[0]!}/conversation`]!,
      runs,
    };
  } finally {
    await memory.close();
    if (!options.workDir) {
      await stopLocalServers(config);
      await rm(root, { recursive: true, force: true });
    }
  }
}
