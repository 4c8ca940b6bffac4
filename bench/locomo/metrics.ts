// Retrieval metrics for LoCoMo: turn- and session-level recall@k (share of evidence, and all evidence),
// MRR, per category, latency percentiles.

export interface QuestionOutcome {
  category: number;
  evidence: string[];
  /** Ranked turn ids of the results (chunk level). */
  rankedTurns: string[];
  latencyMs: number;
  /** The question's embedding, timed alone before any search (not in latencyMs). */
  queryEmbeddingMs?: number;
  /** The conversation asked about, for the per-conversation figures. */
  conversation?: string;
}

export interface RecallSet {
  /** Mean share of a question's evidence found in the first k. */
  'recall@5': number;
  'recall@10': number;
  /** Share of questions with all their evidence in the first k (stricter: multi-hop needs every piece). */
  'all@5': number;
  'all@10': number;
}

type Summary = { questions: number; turn: RecallSet; session: RecallSet; mrr: number };

export interface Metrics {
  questions: number;
  turn: RecallSet;
  session: RecallSet;
  mrr: number;
  by_category: Record<string, Summary>;
  /** Categories 1-4 of each conversation, when the outcomes name theirs. */
  by_conversation?: Record<string, Summary>;
  /** In-process time of one search, its query already embedded (every ablation alike). */
  latency_ms: { p50: number; p95: number };
  /** The question's embedding plus the search, per question: what a caller that embeds the query waits for. */
  with_embedding_ms?: { p50: number; p95: number };
}

/** Share of the evidence items found among the first k ranked items. */
export function recallAt(ranked: string[], evidence: string[], k: number): number {
  if (evidence.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return evidence.filter((e) => top.has(e)).length / evidence.length;
}

/** 1 when every evidence item is among the first k ranked items, else 0. */
export function allAt(ranked: string[], evidence: string[], k: number): number {
  if (evidence.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return evidence.every((e) => top.has(e)) ? 1 : 0;
}

/** The session of a turn id: "D3:7" -> "S3"; a pooled, conversation-qualified "conv-26/D3:7" -> "conv-26/S3". */
export function sessionKey(turnId: string): string {
  const m = /^(.*?)D(\d+):\d+$/.exec(turnId);
  return m ? `${m[1]}S${Number(m[2])}` : turnId;
}

/** Sessions in the order their first turn appears in the ranking. */
export function rankedSessions(rankedTurns: string[]): string[] {
  return [...new Set(rankedTurns.map(sessionKey))];
}

export function reciprocalRank(ranked: string[], evidence: string[]): number {
  const wanted = new Set(evidence);
  const i = ranked.findIndex((t) => wanted.has(t));
  return i === -1 ? 0 : 1 / (i + 1);
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

function recallSet(
  mean: (f: (o: QuestionOutcome) => number) => number,
  ranked: (o: QuestionOutcome) => string[],
  wanted: (o: QuestionOutcome) => string[],
): RecallSet {
  return {
    'recall@5': mean((o) => recallAt(ranked(o), wanted(o), 5)),
    'recall@10': mean((o) => recallAt(ranked(o), wanted(o), 10)),
    'all@5': mean((o) => allAt(ranked(o), wanted(o), 5)),
    'all@10': mean((o) => allAt(ranked(o), wanted(o), 10)),
  };
}

export function summarise(outcomes: QuestionOutcome[]): Summary {
  const mean = (f: (o: QuestionOutcome) => number) => (outcomes.length ? outcomes.reduce((s, o) => s + f(o), 0) / outcomes.length : 0);
  return {
    questions: outcomes.length,
    turn: recallSet(
      mean,
      (o) => o.rankedTurns,
      (o) => o.evidence,
    ),
    session: recallSet(
      mean,
      (o) => rankedSessions(o.rankedTurns),
      (o) => [...new Set(o.evidence.map(sessionKey))],
    ),
    mrr: mean((o) => reciprocalRank(o.rankedTurns, o.evidence)),
  };
}

/**
 * Totals and latency over categories 1-4; category 5 (adversarial: the premise is false, the evidence
 * only looks related) is in by_category alone, so it never moves the headline figures.
 */
export function computeMetrics(outcomes: QuestionOutcome[]): Metrics {
  const by_category: Metrics['by_category'] = {};
  for (const cat of [...new Set(outcomes.map((o) => o.category))].sort()) {
    by_category[String(cat)] = summarise(outcomes.filter((o) => o.category === cat));
  }
  const scored = outcomes.filter((o) => o.category !== ADVERSARIAL);
  const conversations = [...new Set(scored.flatMap((o) => (o.conversation === undefined ? [] : [o.conversation])))].sort();
  const by_conversation = Object.fromEntries(conversations.map((c) => [c, summarise(scored.filter((o) => o.conversation === c))]));
  const latencies = scored.map((o) => o.latencyMs);
  const embedded = scored.every((o) => o.queryEmbeddingMs !== undefined) && scored.length > 0;
  const withEmbedding = scored.map((o) => o.latencyMs + (o.queryEmbeddingMs ?? 0));
  return {
    ...summarise(scored),
    by_category,
    ...(conversations.length > 0 ? { by_conversation } : {}),
    latency_ms: { p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
    ...(embedded ? { with_embedding_ms: { p50: percentile(withEmbedding, 50), p95: percentile(withEmbedding, 95) } } : {}),
  };
}

export const ADVERSARIAL = 5;
