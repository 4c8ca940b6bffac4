// Blends relevance with recency and importance, per memory type. Pure; every input and output is
// "higher is better" and non-negative, so the blend cannot invert a signal.
import type { ScoringConfig, TypeScoring } from '../core/ranking-settings.js';

export type { ScoringConfig, TypeScoring } from '../core/ranking-settings.js';

// Working memory fades within a day; episodes over weeks; facts and procedures barely.
export const DEFAULT_SCORING: ScoringConfig = {
  working: { relevance: 0.7, recency: 0.2, importance: 0.1, halfLifeHours: 24 },
  episodic: { relevance: 0.8, recency: 0.1, importance: 0.1, halfLifeHours: 24 * 30 },
  semantic: { relevance: 0.85, recency: 0.05, importance: 0.1, halfLifeHours: 24 * 365 },
  procedural: { relevance: 0.85, recency: 0.05, importance: 0.1, halfLifeHours: 24 * 365 },
};

/** Exponential decay in [0, 1]: 1 now, 0.5 after one half-life. Future times count as now. */
export function recencyScore(hoursSince: number, halfLifeHours: number): number {
  if (!(halfLifeHours > 0)) return 0;
  return Math.pow(0.5, Math.max(0, hoursSince) / halfLifeHours);
}

export interface ScoreParts {
  relevance: number;
  recency: number;
  importance: number;
  score: number;
}

export function blendScore(relevance: number, lastTouchedMs: number, importance: number, nowMs: number, weights: TypeScoring): ScoreParts {
  const recency = recencyScore((nowMs - lastTouchedMs) / 3_600_000, weights.halfLifeHours);
  const imp = Math.min(1, Math.max(0, importance));
  const rel = Math.min(1, Math.max(0, relevance));
  const total = weights.relevance + weights.recency + weights.importance;
  const score = total > 0 ? (weights.relevance * rel + weights.recency * recency + weights.importance * imp) / total : rel;
  return { relevance: rel, recency, importance: imp, score };
}
