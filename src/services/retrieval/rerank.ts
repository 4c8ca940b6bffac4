// Optional rerank stage: the best results so far go to a reranker (a cross-encoder behind a `/rerank`
// endpoint) in one request, and its score replaces their fused relevance before recency and importance
// are blended in again. Off unless configured; any failure or timeout keeps the order as it was.
import type { Reranker } from '../ports.js';
import type { FusedCandidate } from './fuse.js';
import type { ScoreParts } from './rescore.js';

/** How many of the best results are sent to the reranker (at least k). */
export const DEFAULT_RERANK_DEPTH = 30;

export interface Ranked {
  c: FusedCandidate;
  parts: ScoreParts;
  /** The reranker's score, in [0, 1], when the stage ran. */
  rerank?: number;
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** Scores in [0, 1] as they are (Cohere, Jina); raw logits (some cross-encoder servers) through a sigmoid. Monotone. */
export function unitScores(scores: number[]): number[] {
  return scores.every((s) => s >= 0 && s <= 1) ? scores : scores.map(sigmoid);
}

/**
 * The first `depth` of `ranked` (best first), reordered by the reranker's relevance blended by
 * `rescore`, then the rest unchanged. Returns `ranked` itself when there is no reranker or it failed.
 */
export async function rerankRanked<T extends Ranked>(
  reranker: Reranker | undefined,
  query: string,
  ranked: T[],
  depth: number,
  rescore: (relevance: number, item: T) => ScoreParts,
): Promise<T[]> {
  if (!reranker || ranked.length === 0) return ranked;
  const head = ranked.slice(0, depth);
  let scores: number[];
  try {
    scores = unitScores(
      await reranker.rerank(
        query,
        head.map((r) => r.c.hit.record.content),
      ),
    );
  } catch {
    return ranked; // the unreranked order: a search never fails for its optional stage
  }
  const reranked = head.map((r, i) => ({ ...r, rerank: scores[i]!, parts: rescore(scores[i]!, r) })).sort((a, b) => b.parts.score - a.parts.score);
  return [...reranked, ...ranked.slice(depth)];
}
