// Retrieval metrics for LoCoMo: turn- and session-level recall@k, MRR, per category, latency percentiles.
import { sessionOfTurn } from './dataset.js';

export interface QuestionOutcome {
  category: number;
  evidence: string[];
  /** Ranked turn ids of the results (chunk level). */
  rankedTurns: string[];
  latencyMs: number;
}

export interface RecallSet {
  'recall@5': number;
  'recall@10': number;
}

export interface Metrics {
  questions: number;
  turn: RecallSet;
  session: RecallSet;
  mrr: number;
  by_category: Record<string, { questions: number; turn: RecallSet; session: RecallSet; mrr: number }>;
  latency_ms: { p50: number; p95: number };
}

/** Share of the evidence items found among the first k ranked items. */
export function recallAt(ranked: string[], evidence: string[], k: number): number {
  if (evidence.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return evidence.filter((e) => top.has(e)).length / evidence.length;
}

/** Sessions in the order their first turn appears in the ranking. */
export function rankedSessions(rankedTurns: string[]): string[] {
  return [...new Set(rankedTurns.map((t) => `S${sessionOfTurn(t)}`))];
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

function summarise(outcomes: QuestionOutcome[]) {
  const mean = (f: (o: QuestionOutcome) => number) => (outcomes.length ? outcomes.reduce((s, o) => s + f(o), 0) / outcomes.length : 0);
  const sessions = (o: QuestionOutcome) => [...new Set(o.evidence.map((e) => `S${sessionOfTurn(e)}`))];
  return {
    questions: outcomes.length,
    turn: { 'recall@5': mean((o) => recallAt(o.rankedTurns, o.evidence, 5)), 'recall@10': mean((o) => recallAt(o.rankedTurns, o.evidence, 10)) },
    session: {
      'recall@5': mean((o) => recallAt(rankedSessions(o.rankedTurns), sessions(o), 5)),
      'recall@10': mean((o) => recallAt(rankedSessions(o.rankedTurns), sessions(o), 10)),
    },
    mrr: mean((o) => reciprocalRank(o.rankedTurns, o.evidence)),
  };
}

export function computeMetrics(outcomes: QuestionOutcome[]): Metrics {
  const by_category: Metrics['by_category'] = {};
  for (const cat of [...new Set(outcomes.map((o) => o.category))].sort()) {
    by_category[String(cat)] = summarise(outcomes.filter((o) => o.category === cat));
  }
  const latencies = outcomes.map((o) => o.latencyMs);
  return { ...summarise(outcomes), by_category, latency_ms: { p50: percentile(latencies, 50), p95: percentile(latencies, 95) } };
}
