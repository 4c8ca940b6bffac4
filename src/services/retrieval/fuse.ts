// Fuses the dense and BM25 candidate lists into one relevance score in [0, 1] per chunk. Pure.
import type { FusionOptions } from '../core/ranking-settings.js';
import type { IndexHit } from '../ports.js';

export type { Fusion, FusionOptions } from '../core/ranking-settings.js';

// denseWeight 0.45 was the best of 0.3 / 0.45 / 0.6 / 0.75 on the LoCoMo dev split.
export const DEFAULT_FUSION: FusionOptions = { fusion: 'weighted', rrfK: 60, denseWeight: 0.45 };

export interface FusedCandidate {
  hit: IndexHit;
  /** Raw signals, "higher is better": cosine similarity in [-1, 1] and BM25 (>= 0). */
  dense?: number;
  bm25?: number;
  /** Cosine similarity on the second dense field, when it found the unit (retrieval/second-dense.ts). */
  second?: number;
  /** Fused relevance in [0, 1]. */
  relevance: number;
  /** Relevance of the best context window containing the unit, when one was a candidate (retrieval/windows.ts). */
  window?: number;
}

/** Hits scored on the scale of the lists they join without setting it (each list best first). */
export interface PlacedLists {
  dense: IndexHit[];
  bm25: IndexHit[];
}

const NONE_PLACED: PlacedLists = { dense: [], bm25: [] };

/**
 * RRF uses ranks only; weighted fusion min-max-normalises each list over the candidates (cosine
 * scores of small models are compressed into a narrow band, BM25 is unbounded) and blends them.
 * `placed` hits (context windows) join on the scale the `dense` and `bm25` lists set: a placed hit
 * takes the rank it would have among them; in weighted fusion the units set the floor and a placed hit
 * below it scores 0, while one above every unit raises the top (so windows that match better than any
 * unit keep their order). A scope's few windows, returned for any query however poorly they match, so
 * neither stretch the units' scale downwards nor lend relevance they do not have.
 */
export function fuseCandidates(
  dense: IndexHit[],
  bm25: IndexHit[],
  options: FusionOptions = DEFAULT_FUSION,
  placed: PlacedLists = NONE_PLACED,
): FusedCandidate[] {
  const byId = new Map<string, FusedCandidate & { denseRank?: number; bm25Rank?: number }>();
  const entry = (hit: IndexHit) => {
    let c = byId.get(hit.record.chunkId);
    if (!c) byId.set(hit.record.chunkId, (c = { hit, relevance: 0 }));
    return c;
  };
  dense.forEach((h, i) => Object.assign(entry(h), { dense: h.score, denseRank: i + 1 }));
  bm25.forEach((h, i) => Object.assign(entry(h), { bm25: h.score, bm25Rank: i + 1 }));
  placed.dense.forEach((h) => Object.assign(entry(h), { dense: h.score, denseRank: rankAmong(dense, h.score) }));
  placed.bm25.forEach((h) => Object.assign(entry(h), { bm25: h.score, bm25Rank: rankAmong(bm25, h.score) }));
  const all = [...byId.values()];
  // A list counts by its units: placed hits with no units to place them among score nothing in it.
  const hasDense = dense.length > 0;
  const hasBm25 = bm25.length > 0;
  const lists = (hasDense ? 1 : 0) + (hasBm25 ? 1 : 0);
  if (options.fusion === 'rrf') {
    const best = lists / (options.rrfK + 1);
    for (const c of all) {
      const sum = (c.denseRank ? 1 / (options.rrfK + c.denseRank) : 0) + (c.bm25Rank ? 1 / (options.rrfK + c.bm25Rank) : 0);
      c.relevance = best > 0 ? sum / best : 0;
    }
  } else {
    const dn = normaliser(
      dense.map((h) => h.score),
      placed.dense.map((h) => h.score),
    );
    const bn = normaliser(
      bm25.map((h) => h.score),
      placed.bm25.map((h) => h.score),
    );
    const wd = !hasDense ? 0 : !hasBm25 ? 1 : options.denseWeight;
    for (const c of all) {
      c.relevance = wd * (c.dense !== undefined ? dn(c.dense) : 0) + (1 - wd) * (c.bm25 !== undefined ? bn(c.bm25) : 0);
    }
  }
  return all.map(({ denseRank: _d, bm25Rank: _b, ...c }) => c).sort((a, b) => b.relevance - a.relevance);
}

/**
 * The rank a score would take in a list (best first): 1 + how many score higher; none below the list's last (a placed
 * hit below every unit has no share of it, as it scores 0 in weighted fusion).
 */
function rankAmong(list: IndexHit[], score: number): number | undefined {
  let above = 0;
  while (above < list.length && list[above]!.score > score) above++;
  return above < list.length ? above + 1 : undefined;
}

/**
 * Min-max with the minimum of `values` and the maximum of `values` and `above` (hits placed on their scale),
 * clamped to [0, 1]; one distinct value with nothing placed above it maps it (and anything at least as good) to 1,
 * an empty list everything to 0.
 */
function normaliser(values: number[], above: number[] = []): (v: number) => number {
  if (values.length === 0) return () => 0;
  const min = Math.min(...values);
  const max = Math.max(...values, ...above);
  if (max - min < 1e-9) return (v) => (v >= min - 1e-9 ? 1 : 0);
  return (v) => Math.min(1, Math.max(0, (v - min) / (max - min)));
}
