// LoCoMo retrieval metrics: recall at k, session ranking, MRR, percentiles, per-category means.
import { describe, expect, it } from 'vitest';

import { allAt, computeMetrics, percentile, rankedSessions, recallAt, reciprocalRank, sessionKey } from '../../../../bench/locomo/metrics.js';

describe('LoCoMo metrics', () => {
  it('recall@k is the share of evidence found in the first k', () => {
    expect(recallAt(['D1:1', 'D2:3', 'D1:2'], ['D1:2', 'D5:5'], 2)).toBe(0);
    expect(recallAt(['D1:1', 'D2:3', 'D1:2'], ['D1:2', 'D5:5'], 3)).toBe(0.5);
    expect(recallAt(['D1:1'], [], 5)).toBe(0);
  });

  it('ranks sessions by the first appearance of any of their turns', () => {
    expect(rankedSessions(['D3:1', 'D1:4', 'D3:2', 'D2:9'])).toEqual(['S3', 'S1', 'S2']);
  });

  it('MRR is 1/rank of the first evidence turn, 0 when absent', () => {
    expect(reciprocalRank(['a', 'D1:2', 'D1:3'], ['D1:3', 'D1:2'])).toBe(0.5);
    expect(reciprocalRank(['a'], ['D1:3'])).toBe(0);
  });

  it('percentiles use the nearest rank', () => {
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([5, 1, 3, 2, 4], 95)).toBe(5);
    expect(percentile([], 50)).toBe(0);
  });

  it('averages per question and per category', () => {
    const m = computeMetrics([
      { category: 4, evidence: ['D1:1'], rankedTurns: ['D1:1', 'D2:1'], latencyMs: 10 },
      { category: 2, evidence: ['D3:1', 'D4:1'], rankedTurns: ['D2:1', 'D3:1'], latencyMs: 30 },
    ]);
    expect(m.questions).toBe(2);
    expect(m.turn['recall@5']).toBeCloseTo((1 + 0.5) / 2, 12);
    expect(m.session['recall@5']).toBeCloseTo((1 + 0.5) / 2, 12);
    expect(m.mrr).toBeCloseTo((1 + 0.5) / 2, 12);
    expect(m.by_category['2']).toMatchObject({ questions: 1, mrr: 0.5 });
    expect(m.latency_ms).toEqual({ p50: 10, p95: 30 });
  });

  it("adds each question's own embedding to its search time when the run timed them, and says nothing when it did not", () => {
    const m = computeMetrics([
      { category: 4, evidence: ['D1:1'], rankedTurns: ['D1:1'], latencyMs: 10, queryEmbeddingMs: 50 },
      { category: 4, evidence: ['D1:1'], rankedTurns: ['D1:1'], latencyMs: 30, queryEmbeddingMs: 5 },
      { category: 4, evidence: ['D1:1'], rankedTurns: ['D1:1'], latencyMs: 20, queryEmbeddingMs: 20 },
    ]);
    expect(m.latency_ms).toEqual({ p50: 20, p95: 30 });
    // Per question, not the sum of the percentiles: 60, 35, 40.
    expect(m.with_embedding_ms).toEqual({ p50: 40, p95: 60 });
    expect(computeMetrics([{ category: 4, evidence: ['D1:1'], rankedTurns: ['D1:1'], latencyMs: 10 }]).with_embedding_ms).toBeUndefined();
  });

  it('all@k counts a question only when every evidence item is in the first k', () => {
    expect(allAt(['D1:1', 'D2:3', 'D1:2'], ['D1:1', 'D1:2'], 2)).toBe(0);
    expect(allAt(['D1:1', 'D2:3', 'D1:2'], ['D1:1', 'D1:2'], 3)).toBe(1);
    expect(allAt(['D1:1'], [], 5)).toBe(0);
    const m = computeMetrics([{ category: 1, evidence: ['D1:1', 'D2:2'], rankedTurns: ['D1:1', 'D3:1'], latencyMs: 1 }]);
    expect(m.turn).toMatchObject({ 'recall@5': 0.5, 'all@5': 0 });
    expect(m.session).toMatchObject({ 'recall@5': 0.5, 'all@5': 0 });
  });

  it('sessions of conversation-qualified turn ids stay apart (pooled scope)', () => {
    expect(sessionKey('conv-26/D3:7')).toBe('conv-26/S3');
    expect(sessionKey('D12:3')).toBe('S12');
    expect(rankedSessions(['a/D1:1', 'b/D1:1', 'a/D1:2'])).toEqual(['a/S1', 'b/S1']);
  });

  it('reports adversarial questions (category 5) by category only, outside the totals', () => {
    const m = computeMetrics([
      { category: 4, evidence: ['D1:1'], rankedTurns: ['D1:1'], latencyMs: 10 },
      { category: 5, evidence: ['D2:1'], rankedTurns: ['D9:9'], latencyMs: 500 },
    ]);
    expect(m.questions).toBe(1);
    expect(m.turn['recall@10']).toBe(1);
    expect(m.by_category['5']).toMatchObject({ questions: 1, mrr: 0 });
    expect(m.latency_ms.p95).toBe(10);
  });
});
