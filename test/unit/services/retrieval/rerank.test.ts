// Rerank stage and query rewrite as search steps: the reranker's order wins within its depth, a higher
// rerank score never ranks lower, and any failure leaves the search as it was.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { QueryRewriter, Reranker } from '../../../../src/services/ports.js';
import { rerankRanked, unitScores, type Ranked } from '../../../../src/services/retrieval/rerank.js';
import { retrievalText } from '../../../../src/services/retrieval/rewrite.js';
import { candidate, hitRecord } from '../../../support/hit-record.js';

const item = (id: string, score: number): Ranked => ({
  c: candidate(score, hitRecord(id, { content: `text of ${id}` })),
  parts: { relevance: score, recency: 0, importance: 0.5, score },
});
const byRelevance = (relevance: number) => ({ relevance, recency: 0, importance: 0.5, score: relevance });
const scripted = (scores: Record<string, number>): Reranker => ({
  model: 'scripted',
  rerank: async (_q, docs) => docs.map((d) => scores[d.replace('text of ', '')] ?? 0),
});
const failing: Reranker = {
  model: 'down',
  rerank: async () => {
    throw new Error('connection refused');
  },
};

describe('rerankRanked', () => {
  it('reorders the first `depth` results by the reranker and keeps the rest after them', async () => {
    const ranked = [item('a', 0.9), item('b', 0.8), item('c', 0.7), item('d', 0.6)];
    const out = await rerankRanked(scripted({ a: 0.1, b: 0.2, c: 0.95 }), 'q', ranked, 3, byRelevance);
    expect(out.map((r) => r.c.hit.record.chunkId)).toEqual(['c', 'b', 'a', 'd']);
    expect(out[0]!.rerank).toBe(0.95);
    expect(out[3]!.rerank).toBeUndefined();
  });

  it('no reranker, or one that fails or times out: the same list, unchanged', async () => {
    const ranked = [item('a', 0.9), item('b', 0.8)];
    expect(await rerankRanked(undefined, 'q', ranked, 30, byRelevance)).toBe(ranked);
    expect(await rerankRanked(failing, 'q', ranked, 30, byRelevance)).toBe(ranked);
  });

  it('raw logits are mapped into [0, 1] in the same order', () => {
    const mapped = unitScores([-2, 0.5, 3]);
    expect(mapped.every((s) => s > 0 && s < 1)).toBe(true);
    expect(mapped[0]!).toBeLessThan(mapped[1]!);
    expect(mapped[1]!).toBeLessThan(mapped[2]!);
    expect(unitScores([0.2, 0.9])).toEqual([0.2, 0.9]);
  });

  it('property: a document the reranker scores higher never ranks below one it scores lower', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 2, maxLength: 8 }), async (scores) => {
        const ranked = scores.map((_, i) => item(`m${i}`, 0.5));
        const out = await rerankRanked(scripted(Object.fromEntries(scores.map((s, i) => [`m${i}`, s]))), 'q', ranked, 30, byRelevance);
        for (let i = 1; i < out.length; i++) expect(out[i - 1]!.rerank!).toBeGreaterThanOrEqual(out[i]!.rerank!);
      }),
    );
  });
});

describe('retrievalText', () => {
  const rewriter = (answer: string | Error): QueryRewriter => ({
    model: 'm',
    rewrite: async () => {
      if (answer instanceof Error) throw answer;
      return answer;
    },
  });

  it('searches for the original and the rewrite together', async () => {
    expect(await retrievalText(rewriter('Alice violin lessons'), 'what is Alice learning?')).toBe('what is Alice learning?\nAlice violin lessons');
  });

  it('the original alone without a rewriter, when it fails, or when the rewrite adds nothing', async () => {
    expect(await retrievalText(undefined, 'q')).toBe('q');
    expect(await retrievalText(rewriter(new Error('timeout')), 'q')).toBe('q');
    expect(await retrievalText(rewriter('  Q '), 'q')).toBe('q');
  });
});
