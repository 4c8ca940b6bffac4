// Window signal: a unit gains from the best window containing it, only in the direction of better matches.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { FusedCandidate } from '../../../../src/services/retrieval/fuse.js';
import { bestWindow, unseenUnits, withWindows, type WindowSpan } from '../../../../src/services/retrieval/windows.js';
import { hitRecord } from '../../../support/hit-record.js';

const record = (id: string, path: string, lines: [number, number]) =>
  hitRecord(id, { memoryId: path, type: 'episodic', path, lineStart: lines[0], lineEnd: lines[1] });
const unit = (id: string, path: string, lines: [number, number], relevance: number): FusedCandidate => ({
  relevance,
  hit: { score: relevance, record: record(id, path, lines) },
});
const span = (path: string, lineStart: number, lineEnd: number, relevance: number): WindowSpan => ({ path, lineStart, lineEnd, relevance });
const relevanceOf = (list: FusedCandidate[], id: string) => list.find((c) => c.hit.record.chunkId === id)!.relevance;

describe('withWindows', () => {
  it('lifts a unit inside a well-matching window above an isolated unit that matches better on its own', () => {
    const units = [unit('isolated', 'a.md', [1, 1], 0.6), unit('reply', 'log.md', [5, 5], 0.5)];
    const out = withWindows(units, [span('log.md', 3, 7, 1)], 0.7);
    expect(out.map((c) => c.hit.record.chunkId)).toEqual(['reply', 'isolated']);
    expect(relevanceOf(out, 'reply')).toBeCloseTo((0.5 + 0.7 * 1) / 1.7);
  });

  it('leaves a unit that no window contains (an atomic fact) at its own relevance', () => {
    const out = withWindows([unit('fact', 'fact.md', [5, 5], 0.42)], [span('log.md', 1, 9, 1), span('fact.md', 6, 9, 1)], 0.7);
    expect(relevanceOf(out, 'fact')).toBeCloseTo(0.42);
  });

  it('never lowers a unit whose windows match worse than it does', () => {
    const out = withWindows([unit('u', 'log.md', [5, 5], 0.9)], [span('log.md', 3, 7, 0.1)], 0.7);
    expect(relevanceOf(out, 'u')).toBeCloseTo(0.9);
  });

  it('uses the best window containing the unit, and only those that contain it', () => {
    const windows = [span('log.md', 1, 5, 0.3), span('log.md', 3, 7, 0.8), span('log.md', 6, 9, 1), span('other.md', 1, 9, 1)];
    expect(bestWindow(windows, 'log.md', 5, 5)).toBe(0.8);
  });

  it('is monotone: a better own match, or a better window around it, never scores lower (property)', () => {
    const r = fc.double({ min: 0, max: 1, noNaN: true });
    fc.assert(
      fc.property(r, r, r, r, fc.double({ min: 0, max: 2, noNaN: true }), (own, own2, win, win2, share) => {
        const score = (o: number, w: number) =>
          relevanceOf(withWindows([unit('u', 'l.md', [5, 5], o), unit('x', 'x.md', [1, 1], 0.5)], [span('l.md', 4, 6, w)], share), 'u');
        const [lo, hi] = own <= own2 ? [own, own2] : [own2, own];
        const [wlo, whi] = win <= win2 ? [win, win2] : [win2, win];
        expect(score(hi, win)).toBeGreaterThanOrEqual(score(lo, win) - 1e-12);
        expect(score(own, whi)).toBeGreaterThanOrEqual(score(own, wlo) - 1e-12);
        const s = score(own, win);
        expect(s).toBeGreaterThanOrEqual(own - 1e-12);
        expect(s).toBeLessThanOrEqual(1 + 1e-12);
      }),
    );
  });

  it('changes nothing with share 0 or no windows', () => {
    const units = [unit('a', 'a.md', [1, 1], 0.3)];
    expect(withWindows(units, [span('a.md', 1, 3, 1)], 0)).toBe(units);
    expect(withWindows(units, [], 0.7)).toBe(units);
  });
});

describe('unseenUnits', () => {
  it('adds the units of the best windows that no signal returned, once, with no relevance of their own', () => {
    const candidates = [unit('seen', 'log.md', [3, 3], 0.8)];
    const inside = [record('seen', 'log.md', [3, 3]), record('reply', 'log.md', [5, 5]), record('reply', 'log.md', [5, 5])];
    const extra = unseenUnits(candidates, inside);
    expect(extra.map((c) => [c.hit.record.chunkId, c.relevance])).toEqual([['reply', 0]]);
    // With its window, the unseen reply ranks by that window alone.
    const out = withWindows([...candidates, ...extra], [span('log.md', 3, 5, 0.9)], 0.7);
    expect(relevanceOf(out, 'reply')).toBeCloseTo((0.7 * 0.9) / 1.7);
  });
});
