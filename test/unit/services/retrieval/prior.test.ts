// Section prior: a unit gains from its section's best matches, only in the direction of better matches.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { FusedCandidate } from '../../../../src/services/retrieval/fuse.js';
import { NO_PRIOR, SECTION_PRIOR, sectionRelevance, withSectionPrior } from '../../../../src/services/retrieval/prior.js';
import { candidate, hitRecord } from '../../../support/hit-record.js';

const cand = (id: string, path: string, heading: string, relevance: number): FusedCandidate =>
  candidate(relevance, hitRecord(id, { memoryId: path, type: 'episodic', path, heading }));
const rel = (out: FusedCandidate[], id: string) => out.find((c) => c.hit.record.chunkId === id)!.relevance;

describe('withSectionPrior', () => {
  it('a weak unit of a section that matches in several places outranks an equal lone match', () => {
    const out = withSectionPrior(
      [cand('a1', 'day.md', 'S1', 0.9), cand('a2', 'day.md', 'S1', 0.8), cand('a3', 'day.md', 'S1', 0.4), cand('b1', 'b.md', 'S1', 0.4)],
      SECTION_PRIOR,
    );
    expect(rel(out, 'a3')).toBeGreaterThan(rel(out, 'b1'));
  });

  it('sections of one file count apart: a day log holds several sessions', () => {
    const out = withSectionPrior(
      [cand('s1', 'day.md', 'Session 1', 0.9), cand('s1b', 'day.md', 'Session 1', 0.85), cand('s2', 'day.md', 'Session 2', 0.4), cand('x', 'x.md', '', 0.4)],
      SECTION_PRIOR,
    );
    expect(rel(out, 's2')).toBeCloseTo(rel(out, 'x'), 12);
    expect(sectionRelevance(out, 3).size).toBe(3);
  });

  it('only lifts: a unit alone in its section, or better than its section, keeps its relevance', () => {
    const out = withSectionPrior([cand('fact', 'fact.md', '', 0.6), cand('top', 'log.md', 'S', 0.9), cand('low', 'log.md', 'S', 0.1)], SECTION_PRIOR);
    expect(rel(out, 'fact')).toBeCloseTo(0.6, 12);
    expect(rel(out, 'top')).toBeCloseTo(0.9, 12);
    expect(rel(out, 'low')).toBeGreaterThan(0.1);
  });

  it('as a blend, the best unit of a section matching in several places outranks an equal one matching once', () => {
    const blend = { ...SECTION_PRIOR, onlyLifts: false };
    const out = withSectionPrior(
      [cand('a1', 'a.md', 'S', 0.8), cand('a2', 'a.md', 'S', 0.7), cand('b1', 'b.md', 'S', 0.8), cand('b2', 'b.md', 'S', 0.1), cand('fact', 'f.md', '', 0.8)],
      blend,
    );
    expect(rel(out, 'a1')).toBeGreaterThan(rel(out, 'b1'));
    expect(rel(out, 'fact')).toBeCloseTo(0.8, 12);
  });

  it('switched off, it changes nothing', () => {
    const input = [cand('a', 'f.md', 'S', 0.4), cand('b', 'f.md', 'S', 0.9)];
    expect(withSectionPrior(input, NO_PRIOR)).toBe(input);
  });

  it('property: relevance stays in [0, 1], and raising any candidate never lowers any score', () => {
    const arb = fc.array(
      fc.record({ path: fc.constantFrom('a.md', 'b.md'), heading: fc.constantFrom('S1', 'S2'), rel: fc.double({ min: 0, max: 1, noNaN: true }) }),
      { minLength: 1, maxLength: 8 },
    );
    fc.assert(
      fc.property(
        arb,
        fc.nat(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom(0.2, 0.3, 0.5),
        fc.boolean(),
        (items, pick, lift, share, onlyLifts) => {
          const make = (bump: number) =>
            items.map((it, i) => cand(`c${i}`, it.path, it.heading, i === pick % items.length ? Math.min(1, it.rel + bump) : it.rel));
          const options = { ...SECTION_PRIOR, share, onlyLifts };
          const before = withSectionPrior(make(0), options);
          const after = withSectionPrior(make(lift), options);
          for (const c of before) {
            expect(c.relevance).toBeGreaterThanOrEqual(0);
            expect(c.relevance).toBeLessThanOrEqual(1 + 1e-12);
            expect(rel(after, c.hit.record.chunkId)).toBeGreaterThanOrEqual(c.relevance - 1e-12);
          }
        },
      ),
    );
  });
});
