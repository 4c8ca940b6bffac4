// Fusion of dense and BM25 candidate lists: direction, normalisation and the two strategies.
import { describe, expect, it } from 'vitest';

import type { IndexHit } from '../../../../src/services/ports.js';
import { fuseCandidates } from '../../../../src/services/retrieval/fuse.js';
import { hitRecord } from '../../../support/hit-record.js';

const hit = (id: string, score: number): IndexHit => ({ score, record: hitRecord(id) });

describe('fuseCandidates', () => {
  it('weighted: a chunk strong in both lists beats one strong in only one', () => {
    const dense = [hit('a', 0.9), hit('b', 0.85), hit('c', 0.6)];
    const bm25 = [hit('b', 12), hit('c', 3)];
    const fused = fuseCandidates(dense, bm25, { fusion: 'weighted', rrfK: 60, denseWeight: 0.5 });
    expect(fused.map((f) => f.hit.record.chunkId)).toEqual(['b', 'a', 'c']);
    expect(fused[0]).toMatchObject({ dense: 0.85, bm25: 12 });
  });

  it('weighted: relevance is within [0, 1], higher is better, and the best possible is 1', () => {
    const fused = fuseCandidates([hit('a', 0.9), hit('b', 0.2)], [hit('a', 5), hit('b', 1)], { fusion: 'weighted', rrfK: 60, denseWeight: 0.6 });
    expect(fused[0]!.relevance).toBeCloseTo(1, 9);
    expect(fused[1]!.relevance).toBeGreaterThanOrEqual(0);
    expect(fused[1]!.relevance).toBeLessThan(fused[0]!.relevance);
  });

  it('weighted with one list empty uses the other list alone', () => {
    const fused = fuseCandidates([], [hit('x', 4), hit('y', 2)], { fusion: 'weighted', rrfK: 60, denseWeight: 0.6 });
    expect(fused.map((f) => [f.hit.record.chunkId, f.relevance])).toEqual([
      ['x', 1],
      ['y', 0],
    ]);
  });

  it('rrf: ranks only; first in both lists scores 1', () => {
    const fused = fuseCandidates([hit('a', 0.1), hit('b', 0.09)], [hit('a', 100), hit('c', 1)], { fusion: 'rrf', rrfK: 60, denseWeight: 0.5 });
    expect(fused[0]!.hit.record.chunkId).toBe('a');
    expect(fused[0]!.relevance).toBeCloseTo(1, 9);
    expect(fused.find((f) => f.hit.record.chunkId === 'b')!.relevance).toBeCloseTo(1 / 62 / (2 / 61), 9);
  });

  describe("placed hits (windows) on the units' scale", () => {
    const weighted = { fusion: 'weighted', rrfK: 60, denseWeight: 0.5 } as const;
    const units = { dense: [hit('a', 0.8), hit('b', 0.6)], bm25: [hit('a', 6), hit('b', 2)] };

    it("a window below every unit lends nothing and leaves the units' relevance as without it", () => {
      const alone = fuseCandidates(units.dense, units.bm25, weighted);
      const fused = fuseCandidates(units.dense, units.bm25, weighted, { dense: [hit('w', 0.1)], bm25: [hit('w', 0.5)] });
      expect(fused.find((f) => f.hit.record.chunkId === 'w')!.relevance).toBe(0);
      for (const id of ['a', 'b'])
        expect(fused.find((f) => f.hit.record.chunkId === id)!.relevance).toBe(alone.find((f) => f.hit.record.chunkId === id)!.relevance);
    });

    it('windows above every unit keep their order (the top is theirs), windows between units score between them', () => {
      const fused = fuseCandidates(units.dense, units.bm25, weighted, {
        dense: [hit('w1', 0.9), hit('w2', 0.85), hit('w3', 0.7)],
        bm25: [hit('w1', 10), hit('w2', 8), hit('w3', 4)],
      });
      expect(fused.map((f) => f.hit.record.chunkId)).toEqual(['w1', 'w2', 'a', 'w3', 'b']);
      expect(fused[0]!.relevance).toBeCloseTo(1, 9);
      expect(fused[4]!.relevance).toBe(0);
    });

    it('rrf: a window below every unit has no share, as in weighted fusion', () => {
      const fused = fuseCandidates(units.dense, units.bm25, { ...weighted, fusion: 'rrf' }, { dense: [hit('w', 0.1)], bm25: [hit('w', 0.5)] });
      expect(fused.find((f) => f.hit.record.chunkId === 'w')!.relevance).toBe(0);
    });

    it('windows with no units to place them among score nothing, in either fusion', () => {
      for (const fusion of ['weighted', 'rrf'] as const) {
        const fused = fuseCandidates([], [], { ...weighted, fusion }, { dense: [hit('w', 0.9)], bm25: [hit('w', 9)] });
        expect(fused.map((f) => f.relevance)).toEqual([0]);
      }
    });

    it('rrf: a window takes the rank it would have among the units', () => {
      const fused = fuseCandidates(units.dense, units.bm25, { ...weighted, fusion: 'rrf' }, { dense: [hit('w', 0.7)], bm25: [hit('w', 3)] });
      expect(fused.find((f) => f.hit.record.chunkId === 'w')!.relevance).toBeCloseTo((1 / 62 + 1 / 62) / (2 / 61), 9);
    });
  });

  it('no candidates gives no results', () => {
    expect(fuseCandidates([], [])).toEqual([]);
  });
});
