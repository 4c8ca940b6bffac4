// Diversity of the top k: what it may reorder (comparable results of one section) and what it may not
// (a better match never moves down; an order without repeated sections stays as it is).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { DEFAULT_DIVERSITY, diversify, NO_DIVERSITY, placeScore, type DiversityOptions } from '../../../../src/services/retrieval/diversity.js';
import type { Ranked } from '../../../../src/services/retrieval/rerank.js';
import { hitRecord } from '../../../support/hit-record.js';

const item = (id: string, score: number, path = 'log.md', heading = 'Session 1', content = id): Ranked => ({
  c: { relevance: score, hit: { score, record: hitRecord(id, { path, heading, content }) } },
  parts: { relevance: score, recency: 0, importance: 0.5, score },
});
const ids = (list: Ranked[]) => list.map((t) => t.c.hit.record.chunkId);
const sorted = (list: Ranked[]) => [...list].sort((a, b) => b.parts.score - a.parts.score);
const section = (factor: number, more: Partial<DiversityOptions> = {}): DiversityOptions => ({ by: 'section', factor, ...more });

describe('diversify', () => {
  it('puts a comparable result of another section above the third of one section', () => {
    const ranked = [item('a1', 0.9), item('a2', 0.88), item('a3', 0.86), item('b1', 0.8, 'log.md', 'Session 2')];
    expect(ids(diversify(ranked, 4, 'q', section(0.7)))).toEqual(['a1', 'b1', 'a2', 'a3']);
  });

  it('keeps a much better result of the same section above a poor one of another', () => {
    const ranked = [item('a1', 0.9), item('a2', 0.88), item('b1', 0.3, 'log.md', 'Session 2')];
    expect(ids(diversify(ranked, 3, 'q', section(0.7)))).toEqual(['a1', 'a2', 'b1']);
  });

  it('tells sections of one file apart, and with by: file treats the file as one place', () => {
    const ranked = [item('a1', 0.9), item('a2', 0.85), item('b1', 0.8, 'log.md', 'Session 2'), item('c1', 0.75, 'other.md')];
    expect(ids(diversify(ranked, 4, 'q', section(0.7)))).toEqual(['a1', 'b1', 'c1', 'a2']);
    expect(ids(diversify(ranked, 4, 'q', { by: 'file', factor: 0.7 }))).toEqual(['a1', 'c1', 'a2', 'b1']);
  });

  it('by default, gives a near tie to a file not yet listed, and keeps a clearly better neighbour right after its match', () => {
    // 0.95 of 0.80 is 0.76: below the other file's 0.78, above its 0.70.
    const near = [item('a1', 0.9), item('a2', 0.8), item('b1', 0.78, 'b.md')];
    expect(ids(diversify(near, 3, 'q', DEFAULT_DIVERSITY))).toEqual(['a1', 'b1', 'a2']);
    const clear = [item('a1', 0.9), item('a2', 0.8), item('b1', 0.7, 'b.md')];
    expect(ids(diversify(clear, 3, 'q', DEFAULT_DIVERSITY))).toEqual(['a1', 'a2', 'b1']);
    // Once: a file's third result is discounted as its second is, not twice.
    const third = [item('a1', 0.9), item('a2', 0.8), item('a3', 0.79), item('b1', 0.77, 'b.md')];
    expect(ids(diversify(third, 4, 'q', DEFAULT_DIVERSITY))).toEqual(['a1', 'b1', 'a2', 'a3']);
  });

  it('changes nothing when every result is its own file (one result per memory) or when it is off', () => {
    const ranked = [item('a', 0.9, 'a.md'), item('b', 0.8, 'b.md'), item('c', 0.7, 'c.md')];
    expect(ids(diversify(ranked, 3, 'q', section(0.5)))).toEqual(['a', 'b', 'c']);
    const one = [item('a1', 0.9), item('a2', 0.8)];
    expect(diversify(one, 2, 'q', NO_DIVERSITY)).toBe(one);
  });

  it('rewards a result holding query keywords the results above do not (coverage)', () => {
    const ranked = [
      item('paint', 0.9, 'a.md', '', 'She paints sunsets'),
      item('paint2', 0.85, 'b.md', '', 'painting again'),
      item('camp', 0.8, 'c.md', '', 'we went camping'),
    ];
    expect(ids(diversify(ranked, 3, 'What did she paint and where did they camp?', section(1, { coverage: 0.2 })))).toEqual(['paint', 'camp', 'paint2']);
  });

  it('gives the first places to the best result of each of the best sections (places)', () => {
    const ranked = [item('a1', 0.9), item('a2', 0.89), item('a3', 0.88), item('b1', 0.7, 'log.md', 'Session 2'), item('c1', 0.2, 'c.md')];
    expect(ids(diversify(ranked, 5, 'q', section(1, { places: 2 })))).toEqual(['a1', 'b1', 'a2', 'a3', 'c1']);
    expect(placeScore([0.9, 0.6, 0.3, 0.1])).toBeCloseTo((0.9 + 0.6) / 2);
  });

  it('with once, never places a result below one that scores less than factor times its score', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: 0.01, max: 1, noNaN: true }), fc.integer({ min: 0, max: 2 })), { minLength: 2, maxLength: 12 }),
        (rows) => {
          const ranked = sorted(rows.map(([s, sec], i) => item(`m${i}`, s, 'log.md', `S${sec}`)));
          const out = diversify(ranked, ranked.length, 'q', section(0.7, { once: true }));
          out.forEach((upper, i) => out.slice(i + 1).forEach((lower) => expect(upper.parts.score).toBeGreaterThanOrEqual(0.7 * lower.parts.score - 1e-12)));
        },
      ),
    );
  });

  it('a result whose score rises never moves down, whatever the options', () => {
    const options = fc.record({
      by: fc.constantFrom<'section' | 'file'>('section', 'file'),
      factor: fc.constantFrom(0.5, 0.7, 1),
      once: fc.boolean(),
      coverage: fc.constantFrom(0, 0.2),
      places: fc.constantFrom(0, 3),
    });
    const words = ['paint', 'camp', 'lake', 'dog'];
    const row = fc.tuple(fc.double({ min: 0.01, max: 1, noNaN: true }), fc.integer({ min: 0, max: 3 }), fc.subarray(words));
    fc.assert(
      fc.property(fc.array(row, { minLength: 2, maxLength: 10 }), fc.nat(), fc.double({ min: 0, max: 0.5, noNaN: true }), options, (rows, pick, lift, opts) => {
        const build = (boost: number) =>
          sorted(rows.map(([s, sec, w], i) => item(`m${i}`, i === pick % rows.length ? s + boost : s, `f${sec % 2}.md`, `S${sec}`, w.join(' '))));
        const k = rows.length;
        const before = ids(diversify(build(0), k, 'paint camp lake dog', opts)).indexOf(`m${pick % rows.length}`);
        const after = ids(diversify(build(lift), k, 'paint camp lake dog', opts)).indexOf(`m${pick % rows.length}`);
        expect(after).toBeLessThanOrEqual(before);
      }),
    );
  });

  it('only reorders: the same results, and those after the first k in their order', () => {
    const ranked = [item('a1', 0.9), item('a2', 0.88), item('b1', 0.8, 'log.md', 'Session 2'), item('a3', 0.7), item('a4', 0.6)];
    const out = diversify(ranked, 2, 'q', section(0.5));
    expect(ids(out)).toEqual(['a1', 'b1', 'a2', 'a3', 'a4']);
  });
});
