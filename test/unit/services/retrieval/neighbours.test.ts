// Context signals: adjacent chunks and the file lift a chunk, only in the direction of better matches.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { FusedCandidate } from '../../../../src/services/retrieval/fuse.js';
import { CONTEXT_SHARES, NO_CONTEXT, withContext } from '../../../../src/services/retrieval/neighbours.js';
import { candidate, hitRecord } from '../../../support/hit-record.js';

const cand = (id: string, path: string, lines: [number, number], relevance: number): FusedCandidate =>
  candidate(relevance, hitRecord(id, { memoryId: path, type: 'episodic', path, lineStart: lines[0], lineEnd: lines[1] }));
const rel = (out: FusedCandidate[], id: string) => out.find((c) => c.hit.record.chunkId === id)!.relevance;

describe('withContext', () => {
  it('an answer right after the chunk that matched the question outranks an equal match elsewhere', () => {
    const out = withContext(
      [cand('question', 'log.md', [10, 12], 0.9), cand('answer', 'log.md', [14, 16], 0.5), cand('unrelated', 'other.md', [14, 16], 0.5)],
      { ...NO_CONTEXT, neighbour: 0.5 },
    );
    expect(rel(out, 'answer')).toBeGreaterThan(rel(out, 'unrelated'));
    expect(out.map((c) => c.hit.record.chunkId)[0]).toBe('question');
  });

  it('chunks of one file further apart than a blank line or two are not neighbours', () => {
    const out = withContext([cand('a', 'f.md', [1, 3], 0.9), cand('b', 'f.md', [30, 31], 0.5), cand('c', 'g.md', [30, 31], 0.5)], {
      ...NO_CONTEXT,
      neighbour: 0.5,
    });
    expect(rel(out, 'b')).toBe(rel(out, 'c'));
  });

  it('a weak chunk of a file that matches strongly elsewhere outranks an equal lone match', () => {
    const out = withContext(
      [
        cand('a1', 'a.md', [1, 1], 0.9),
        cand('a2', 'a.md', [20, 20], 0.8),
        cand('a3', 'a.md', [40, 40], 0.7),
        cand('a4', 'a.md', [60, 60], 0.4),
        cand('b1', 'b.md', [1, 1], 0.4),
      ],
      { ...NO_CONTEXT, file: 0.3 },
    );
    expect(rel(out, 'a4')).toBeGreaterThan(rel(out, 'b1'));
  });

  it('context only lifts: an isolated fact keeps its relevance, and so does a long chunk', () => {
    const long = { ...cand('long', 'log.md', [5, 9], 0.3) };
    long.hit = { ...long.hit, record: { ...long.hit.record, content: 'x'.repeat(CONTEXT_SHARES.maxChars + 1) } };
    const out = withContext([cand('fact', 'fact.md', [1, 1], 0.6), cand('q', 'log.md', [1, 3], 0.9), long], CONTEXT_SHARES);
    expect(rel(out, 'fact')).toBeCloseTo(0.6, 12);
    expect(rel(out, 'long')).toBeCloseTo(0.3, 12);
    expect(rel(out, 'q')).toBeCloseTo(0.9, 12);
  });

  it('with its own gate lifted, the file share reaches a long chunk of a matching file (and only lifts it)', () => {
    const long = { ...cand('long', 'log.md', [5, 9], 0.3) };
    long.hit = { ...long.hit, record: { ...long.hit.record, content: 'x'.repeat(CONTEXT_SHARES.maxChars + 1) } };
    const other = { ...cand('other', 'other.md', [5, 9], 0.3) };
    other.hit = { ...other.hit, record: { ...other.hit.record, content: 'y'.repeat(CONTEXT_SHARES.maxChars + 1) } };
    const options = { ...CONTEXT_SHARES, fileMaxChars: Number.POSITIVE_INFINITY };
    const out = withContext([cand('q', 'log.md', [1, 3], 0.9), long, other], options);
    expect(rel(out, 'long')).toBeGreaterThan(rel(out, 'other'));
    expect(rel(out, 'other')).toBeCloseTo(0.3, 12);
  });

  it('switched off, it changes nothing', () => {
    const input = [cand('a', 'f.md', [1, 1], 0.4), cand('b', 'f.md', [3, 3], 0.9)];
    expect(withContext(input, NO_CONTEXT)).toBe(input);
  });

  it('property: relevance stays in [0, 1], and raising any candidate never lowers any score', () => {
    const arb = fc.array(
      fc.record({ path: fc.constantFrom('a.md', 'b.md'), line: fc.integer({ min: 1, max: 12 }), rel: fc.double({ min: 0, max: 1, noNaN: true }) }),
      { minLength: 1, maxLength: 8 },
    );
    fc.assert(
      fc.property(arb, fc.nat(), fc.double({ min: 0, max: 1, noNaN: true }), (items, pick, lift) => {
        const make = (bump: number) =>
          items.map((it, i) => cand(`c${i}`, it.path, [it.line * 2, it.line * 2], i === pick % items.length ? Math.min(1, it.rel + bump) : it.rel));
        const before = withContext(make(0), CONTEXT_SHARES);
        const after = withContext(make(lift), CONTEXT_SHARES);
        for (const c of before) {
          expect(c.relevance).toBeGreaterThanOrEqual(0);
          expect(c.relevance).toBeLessThanOrEqual(1 + 1e-12);
          expect(rel(after, c.hit.record.chunkId)).toBeGreaterThanOrEqual(c.relevance - 1e-12);
        }
      }),
    );
  });
});
