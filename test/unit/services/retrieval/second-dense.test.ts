// The second dense field's fusion term: direction, its share, new candidates, windows untouched.
import { describe, expect, it } from 'vitest';

import type { IndexHit } from '../../../../src/services/ports.js';
import { withSecondDense } from '../../../../src/services/retrieval/second-dense.js';
import { candidate, hitRecord } from '../../../support/hit-record.js';

const hit = (id: string, score: number): IndexHit => ({ score, record: hitRecord(id) });
const relevanceOf = (out: { hit: IndexHit; relevance: number }[], id: string) => out.find((c) => c.hit.record.chunkId === id)!.relevance;

describe('withSecondDense', () => {
  it('a better match on the second field never scores lower (equal fused relevance)', () => {
    const fused = [candidate(0.6, hitRecord('a')), candidate(0.6, hitRecord('b'))];
    const out = withSecondDense(fused, [hit('a', 0.7), hit('b', 0.5), hit('c', 0.2)], 0.4);
    expect(relevanceOf(out, 'a')).toBeGreaterThan(relevanceOf(out, 'b'));
    expect(out.map((c) => c.hit.record.chunkId)).toEqual(['a', 'b', 'c']);
  });

  it('blends (1 - share) of the fused relevance with share of the min-max scaled similarity', () => {
    const out = withSecondDense([candidate(0.5, hitRecord('a')), candidate(1, hitRecord('b'))], [hit('a', 0.8), hit('b', 0.4)], 0.4);
    expect(relevanceOf(out, 'a')).toBeCloseTo(0.6 * 0.5 + 0.4 * 1, 9);
    expect(relevanceOf(out, 'b')).toBeCloseTo(0.6 * 1 + 0.4 * 0, 9);
    expect(out.find((c) => c.hit.record.chunkId === 'a')!.second).toBe(0.8);
  });

  it('a unit only the second field found joins with its share alone; one it did not find keeps (1 - share)', () => {
    const out = withSecondDense([candidate(1, hitRecord('a'))], [hit('new', 0.9), hit('other', 0.1)], 0.3);
    expect(relevanceOf(out, 'new')).toBeCloseTo(0.3, 9);
    expect(relevanceOf(out, 'a')).toBeCloseTo(0.7, 9);
  });

  it('windows keep their relevance: they are a signal on the two-way scale', () => {
    const window = candidate(0.8, hitRecord('w', { kind: 'window' }));
    const out = withSecondDense([window, candidate(0.5, hitRecord('a'))], [hit('a', 0.9)], 0.4);
    expect(relevanceOf(out, 'w')).toBe(0.8);
  });

  it('a share of 0, or no hits, changes nothing', () => {
    const fused = [candidate(0.4, hitRecord('a'))];
    expect(withSecondDense(fused, [hit('b', 0.9)], 0)).toBe(fused);
    expect(withSecondDense(fused, [], 0.4)).toBe(fused);
  });
});
