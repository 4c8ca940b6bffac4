// Window term: every unit gains from its best window into the room its own relevance leaves, only in the direction of better matches.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { FusedCandidate } from '../../../../src/services/retrieval/fuse.js';
import type { WindowSpan } from '../../../../src/services/retrieval/windows.js';
import { withWindowTerm } from '../../../../src/services/retrieval/window-term.js';
import { hitRecord } from '../../../support/hit-record.js';

const unit = (id: string, path: string, line: number, relevance: number): FusedCandidate => ({
  relevance,
  hit: { score: relevance, record: hitRecord(id, { memoryId: path, type: 'episodic', path, lineStart: line, lineEnd: line }) },
});
const span = (path: string, lineStart: number, lineEnd: number, relevance: number): WindowSpan => ({ path, lineStart, lineEnd, relevance });
const relevanceOf = (list: FusedCandidate[], id: string) => list.find((c) => c.hit.record.chunkId === id)!.relevance;

describe('withWindowTerm', () => {
  it('adds share · window · (1 - own), also when the window matches worse than the unit', () => {
    const out = withWindowTerm([unit('u', 'log.md', 5, 0.8)], [span('log.md', 3, 7, 0.5)], 0.2);
    expect(relevanceOf(out, 'u')).toBeCloseTo(0.8 + 0.2 * 0.5 * 0.2, 9);
  });

  it('ranks a unit in a better window above an equal unit in a worse one', () => {
    const units = [unit('poor', 'a.md', 5, 0.6), unit('rich', 'b.md', 5, 0.6)];
    const out = withWindowTerm(units, [span('a.md', 3, 7, 0.2), span('b.md', 3, 7, 0.9)], 0.3);
    expect(out.map((c) => c.hit.record.chunkId)).toEqual(['rich', 'poor']);
  });

  it('leaves a unit that no window contains (an atomic fact) at its own relevance', () => {
    const out = withWindowTerm([unit('fact', 'fact.md', 5, 0.42)], [span('log.md', 1, 9, 1), span('fact.md', 6, 9, 1)], 0.3);
    expect(relevanceOf(out, 'fact')).toBe(0.42);
  });

  it('a share of 0, or no windows, changes nothing', () => {
    const units = [unit('u', 'log.md', 5, 0.5)];
    expect(withWindowTerm(units, [span('log.md', 1, 9, 1)], 0)).toBe(units);
    expect(withWindowTerm(units, [], 0.3)).toBe(units);
  });

  it('a better own match or a better window never scores lower, and relevance stays in [0, 1] (property)', () => {
    const unitScore = fc.double({ min: 0, max: 1, noNaN: true });
    fc.assert(
      fc.property(unitScore, unitScore, unitScore, unitScore, fc.double({ min: 0, max: 1, noNaN: true }), (a, b, w1, w2, share) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const [wlo, whi] = w1 <= w2 ? [w1, w2] : [w2, w1];
        const score = (own: number, window: number) => relevanceOf(withWindowTerm([unit('u', 'log.md', 5, own)], [span('log.md', 3, 7, window)], share), 'u');
        expect(score(hi, wlo)).toBeGreaterThanOrEqual(score(lo, wlo));
        expect(score(lo, whi)).toBeGreaterThanOrEqual(score(lo, wlo));
        expect(score(hi, whi)).toBeLessThanOrEqual(1);
        expect(score(lo, wlo)).toBeGreaterThanOrEqual(lo);
      }),
    );
  });
});
