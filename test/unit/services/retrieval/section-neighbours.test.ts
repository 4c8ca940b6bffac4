// Neighbours across one-unit sections: a turn of a heading-per-turn transcript borrows from the turn beside it,
// and a unit inside a longer section (the windows' ground) or an atomic fact does not.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { FusedCandidate } from '../../../../src/services/retrieval/fuse.js';
import { acrossSections, opensSection, withSectionNeighbours } from '../../../../src/services/retrieval/section-neighbours.js';
import { candidate, hitRecord, type HitRecord } from '../../../support/hit-record.js';

// A transcript written with a heading per turn: "## D1:n Speaker", a blank line, the turn; one blank line between turns.
const turn = (n: number, path = 'session-01.md'): HitRecord =>
  hitRecord(`t${n}`, {
    memoryId: path,
    path,
    heading: `Session 1 > D1:${n} Speaker`,
    lineStart: 10 + 4 * n,
    lineEnd: 12 + 4 * n,
    content: `## D1:${n} Speaker\n\nturn ${n}`,
  });
// A day log: one section of turns, one unit per line, the heading joined to the first.
const logLine = (n: number): HitRecord =>
  hitRecord(`l${n}`, {
    memoryId: 'log.md',
    path: 'log.md',
    heading: 'Session 2023-05-08',
    lineStart: 10 + 2 * n,
    lineEnd: 10 + 2 * n,
    content: n === 0 ? '## Session 2023-05-08\n\n**ann**: hello' : `**ann**: line ${n}`,
  });
const relevanceOf = (list: FusedCandidate[], id: string) => list.find((c) => c.hit.record.chunkId === id)!.relevance;

describe('the shape the rule reads', () => {
  it('a short unit that starts with its heading opens its section; a plain line or a long unit does not', () => {
    expect(opensSection(turn(1))).toBe(true);
    expect(opensSection(logLine(1))).toBe(false);
    expect(opensSection({ content: `## Notes\n\n${'x'.repeat(600)}` })).toBe(false);
  });

  it('two turns of a heading-per-turn transcript are across sections; two lines of one section, or far-apart turns, are not', () => {
    expect(acrossSections(turn(1), turn(2))).toBe(true);
    expect(acrossSections(turn(2), turn(1))).toBe(true);
    expect(acrossSections(turn(1), turn(3))).toBe(false);
    expect(acrossSections(logLine(0), logLine(1))).toBe(false);
    expect(acrossSections(turn(1), turn(2, 'other.md'))).toBe(false);
  });
});

describe('withSectionNeighbours', () => {
  it('lifts the reply after a matching turn above an unrelated turn that matches a little better on its own', () => {
    const out = withSectionNeighbours([candidate(0.9, turn(1)), candidate(0.3, turn(2)), candidate(0.4, turn(7))], 0.5);
    expect(out.map((c) => c.hit.record.chunkId)).toEqual(['t1', 't2', 't7']);
    expect(relevanceOf(out, 't2')).toBeCloseTo((0.3 + 0.5 * 0.9) / 1.5);
    expect(relevanceOf(out, 't1')).toBeCloseTo(0.9);
  });

  it('leaves the lines of a longer section (the windows lend them context) and atomic facts at their own relevance', () => {
    const units = [candidate(0.9, logLine(0)), candidate(0.3, logLine(1)), candidate(0.2, hitRecord('fact', { content: '## Tea\n\nAnn likes tea' }))];
    const out = withSectionNeighbours(units, 0.5);
    expect(relevanceOf(out, 'l1')).toBeCloseTo(0.3);
    expect(relevanceOf(out, 'fact')).toBeCloseTo(0.2);
  });

  it('is monotone: a better own match, or a better neighbour, never scores lower, and stays in [0, 1] (property)', () => {
    const r = fc.double({ min: 0, max: 1, noNaN: true });
    fc.assert(
      fc.property(r, r, r, r, fc.double({ min: 0, max: 2, noNaN: true }), (own, own2, near, near2, share) => {
        const score = (o: number, n: number) => relevanceOf(withSectionNeighbours([candidate(o, turn(2)), candidate(n, turn(1))], share), 't2');
        const [lo, hi] = own <= own2 ? [own, own2] : [own2, own];
        const [nlo, nhi] = near <= near2 ? [near, near2] : [near2, near];
        expect(score(hi, near)).toBeGreaterThanOrEqual(score(lo, near) - 1e-12);
        expect(score(own, nhi)).toBeGreaterThanOrEqual(score(own, nlo) - 1e-12);
        expect(score(own, near)).toBeGreaterThanOrEqual(own - 1e-12);
        expect(score(own, near)).toBeLessThanOrEqual(1 + 1e-12);
      }),
    );
  });

  it('changes nothing with share 0', () => {
    const units = [candidate(0.9, turn(1)), candidate(0.3, turn(2))];
    expect(withSectionNeighbours(units, 0)).toBe(units);
  });
});
