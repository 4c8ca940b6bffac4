// File-level relevance: a file gains from its second and third best units, only in the direction of better matches.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { FILE_SCORE, NO_FILE_SCORE, fileRelevance, fileRelevances } from '../../../../src/services/retrieval/file-score.js';
import { candidate, hitRecord } from '../../../support/hit-record.js';

const unit = (id: string, path: string, relevance: number) => candidate(relevance, hitRecord(id, { memoryId: path, type: 'episodic', path }));
const relevance = fc.double({ min: 0, max: 1, noNaN: true });

describe('fileRelevance', () => {
  it('a file that matches in two places outranks one whose best match is as good but alone', () => {
    const rel = fileRelevances([unit('a1', 'two.md', 0.7), unit('a2', 'two.md', 0.6), unit('b1', 'one.md', 0.7), unit('b2', 'one.md', 0.05)]);
    expect(rel.get('two.md')!).toBeGreaterThan(rel.get('one.md')!);
  });

  it('a file of one unit (a `mem add` fact) keeps its relevance', () => {
    expect(fileRelevance([0.63])).toBeCloseTo(0.63, 12);
    expect(fileRelevances([unit('f', 'fact.md', 0.4)]).get('fact.md')).toBeCloseTo(0.4, 12);
  });

  it('off, a file is its best unit', () => {
    expect(fileRelevance([0.2, 0.9, 0.8], NO_FILE_SCORE)).toBeCloseTo(0.9, 12);
  });

  it('only the room the best leaves to 1 is shared: a perfect match stays 1, and nothing exceeds it', () => {
    expect(fileRelevance([1, 1, 1])).toBe(1);
    expect(fileRelevance([0.5, 0.5, 0.5])).toBeCloseTo(0.5 + 0.5 * (0.5 * 0.5 + 0.25 * 0.5), 12);
  });

  it('a better match of any unit never lowers the file (property)', () => {
    fc.assert(
      fc.property(fc.array(relevance, { minLength: 1, maxLength: 6 }), fc.nat(5), relevance, (list, at, raise) => {
        const i = at % list.length;
        const better = list.map((r, j) => (j === i ? Math.max(r, raise) : r));
        const before = fileRelevance(list, FILE_SCORE);
        const after = fileRelevance(better, FILE_SCORE);
        expect(after).toBeGreaterThanOrEqual(before - 1e-12);
        expect(after).toBeLessThanOrEqual(1);
        // and never below its best unit alone
        expect(before).toBeGreaterThanOrEqual(Math.max(...list) - 1e-12);
      }),
    );
  });

  it('one more matching unit never lowers the file (property)', () => {
    fc.assert(
      fc.property(fc.array(relevance, { minLength: 1, maxLength: 6 }), relevance, (list, extra) => {
        expect(fileRelevance([...list, extra])).toBeGreaterThanOrEqual(fileRelevance(list) - 1e-12);
      }),
    );
  });
});
