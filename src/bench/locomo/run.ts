// `mem bench locomo`: ingests LoCoMo conversations through the normal sync path (one user scope per
// conversation) and measures evidence retrieval for each ablation of the read path.
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import type { MemConfig } from '../../config.js';
import { openMemory } from '../../open-memory.js';
import { stopLocalServers } from '../../server-control.js';
import type { SearchInput } from '../../services/search.js';
import type { ReindexReport } from '../../services/core/sync.js';
import { loadLocomo, type Conversation } from './dataset.js';
import { sessionMarkdown, sessionPath, turnOfHeading, userOf } from './ingest.js';
import { computeMetrics, type Metrics, type QuestionOutcome } from './metrics.js';

export type AblationSettings = Pick<SearchInput, 'mode' | 'fusion' | 'rescore'>;

export const ABLATIONS: Record<string, AblationSettings> = {
  bm25: { mode: 'bm25', rescore: false },
  dense: { mode: 'dense', rescore: false },
  'hybrid-rrf': { mode: 'hybrid', fusion: 'rrf', rescore: false },
  hybrid: { mode: 'hybrid', fusion: 'weighted', rescore: false },
  'hybrid+rescore': { mode: 'hybrid', fusion: 'weighted', rescore: true },
};

export interface LocomoOptions {
  data: string;
  /** Results per question (the depth of MRR and of session ranking). */
  k: number;
  /** Reuse this folder as the memory root between runs (keeps the vector cache); else a temporary one. */
  workDir?: string;
  ablations?: string[];
  onProgress?: (message: string) => void;
}

export interface LocomoReport {
  data: string;
  conversations: number;
  k: number;
  index: Pick<ReindexReport, 'files' | 'chunks' | 'embedded' | 'errors'> & { seconds: number };
  ablations: Record<string, Metrics>;
}

/** Writes a file only when its content differs, so a reused work folder re-embeds nothing. */
async function writeIfChanged(path: string, text: string): Promise<void> {
  const current = await readFile(path, 'utf8').catch(() => null);
  if (current === text) return;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

/** Questions the benchmark scores: categories 1-4 with at least one evidence turn. */
export function scoredQuestions(conversation: Conversation) {
  return conversation.questions.filter((q) => q.category >= 1 && q.category <= 4 && q.evidence.length > 0);
}

export async function runLocomo(base: MemConfig, options: LocomoOptions): Promise<LocomoReport> {
  const log = options.onProgress ?? (() => {});
  const conversations = await loadLocomo(options.data);
  const root = options.workDir ?? (await mkdtemp(join(tmpdir(), 'memdir-locomo-')));
  const config: MemConfig = { ...base, root, git: false };
  for (const conv of conversations) {
    for (const session of conv.sessions) await writeIfChanged(join(root, sessionPath(conv, session)), sessionMarkdown(conv, session));
  }
  const memory = await openMemory(config, { onLog: log });
  try {
    log(`indexing ${conversations.length} conversations in ${root}`);
    const started = performance.now();
    const indexed = await memory.reindex();
    const seconds = (performance.now() - started) / 1000;
    const names = options.ablations ?? Object.keys(ABLATIONS);
    const ablations: Record<string, Metrics> = {};
    for (const name of names) {
      const settings = ABLATIONS[name];
      if (!settings) throw new Error(`unknown ablation ${name}`);
      const outcomes: QuestionOutcome[] = [];
      for (const conv of conversations) {
        const last = conv.sessions[conv.sessions.length - 1];
        // Judge recency the day after the conversation's last session, as an agent would.
        const at = new Date(Date.parse(last?.date ?? '2024-01-01T00:00:00Z') + 86_400_000);
        for (const q of scoredQuestions(conv)) {
          const t0 = performance.now();
          const results = await memory.search({ query: q.question, user: userOf(conv), k: options.k, unit: 'chunk', track: false, at, ...settings });
          const latencyMs = performance.now() - t0;
          const rankedTurns = results.map((r) => turnOfHeading(r.heading)).filter((t): t is string => t !== null);
          outcomes.push({ category: q.category, evidence: q.evidence, rankedTurns, latencyMs });
        }
      }
      ablations[name] = computeMetrics(outcomes);
      log(`${name}: turn R@10 ${ablations[name]!.turn['recall@10'].toFixed(3)}, session R@5 ${ablations[name]!.session['recall@5'].toFixed(3)}`);
    }
    return {
      data: options.data,
      conversations: conversations.length,
      k: options.k,
      index: { files: indexed.files, chunks: indexed.chunks, embedded: indexed.embedded, errors: indexed.errors, seconds },
      ablations,
    };
  } finally {
    await memory.close();
    if (!options.workDir) {
      await stopLocalServers(config);
      await rm(root, { recursive: true, force: true });
    }
  }
}
