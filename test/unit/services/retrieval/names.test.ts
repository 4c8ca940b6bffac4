// Name signal: which query words count as names, and that containing them only ever lifts a chunk.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { FusedCandidate } from '../../../../src/services/retrieval/fuse.js';
import { queryNames, withNames } from '../../../../src/services/retrieval/names.js';
import { candidate, hitRecord } from '../../../support/hit-record.js';

const cand = (id: string, content: string, relevance: number): FusedCandidate => candidate(relevance, hitRecord(id, { type: 'episodic', content }));

describe('queryNames', () => {
  it('takes capitalised words inside a sentence, not its first word, function words or single letters', () => {
    expect(queryNames('What painting did Melanie show to Caroline?')).toEqual(['melanie', 'caroline']);
    expect(queryNames("Where is Ann's cat? The vet in Berlin knows")).toEqual(['ann', 'berlin']);
    expect(queryNames('Would he enjoy "The Four Seasons" by Vivaldi?')).toEqual(['four', 'seasons', 'vivaldi']);
    expect(queryNames('what did i say about the release')).toEqual([]);
  });
});

describe('withNames', () => {
  it('a chunk that names the person asked about outranks an equal one that does not', () => {
    const out = withNames([cand('other', 'Ben: I bought a bike', 0.5), cand('named', '**melanie**: I painted a sunrise', 0.5)], 'What did Melanie paint?', 0.2);
    expect(out.map((c) => c.hit.record.chunkId)).toEqual(['named', 'other']);
  });

  it('names are whole words: "Ann" does not match "Annual"', () => {
    const out = withNames([cand('a', 'Annual report', 0.5), cand('b', 'notes', 0.5)], 'What did Ann write?', 0.2);
    expect(out[0]!.relevance).toBe(out[1]!.relevance);
  });

  it('a query without names, or share 0, changes nothing', () => {
    const input = [cand('a', 'x', 0.3)];
    expect(withNames(input, 'what happened last week', 0.2)).toBe(input);
    expect(withNames(input, 'What did Ann say?', 0)).toBe(input);
  });

  it('property: relevance stays in [0, 1] and never drops below own relevance scaled, and more names never lower it', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (rel, share) => {
        const q = 'Did Ann meet Ben?';
        const [none] = withNames([cand('a', 'nobody', rel)], q, share);
        const [one] = withNames([cand('a', 'Ann was there', rel)], q, share);
        const [both] = withNames([cand('a', 'Ann and Ben', rel)], q, share);
        expect(one!.relevance).toBeGreaterThanOrEqual(none!.relevance);
        expect(both!.relevance).toBeGreaterThanOrEqual(one!.relevance);
        expect(both!.relevance).toBeLessThanOrEqual(1 + 1e-12);
      }),
    );
  });
});
