// Date signal: which periods a query names, which dates a chunk carries, and that a chunk dated in the
// period only ever gains.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { chunkDates, queryPeriods, withPeriods, type Period } from '../../../../src/services/retrieval/dates.js';
import type { FusedCandidate } from '../../../../src/services/retrieval/fuse.js';
import { candidate, hitRecord } from '../../../support/hit-record.js';

const at = new Date('2023-08-20T12:00:00Z');
const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);

const cand = (id: string, relevance: number, dated: { path?: string; heading?: string; created?: string }): FusedCandidate =>
  candidate(
    relevance,
    hitRecord(id, {
      type: 'episodic',
      created: Date.parse(dated.created ?? '2020-01-01T00:00:00Z'),
      path: dated.path ?? `u/semantic/${id}.md`,
      heading: dated.heading ?? '',
    }),
  );

const covers = (query: string, iso: string) => queryPeriods(query, at).some((p) => p.start <= day(iso) && day(iso) < p.end);

describe('queryPeriods', () => {
  it('reads a month, a day, relative days and weeks, at the precision the query names them', () => {
    expect(covers('What did Melanie do in May 2023?', '2023-05-28')).toBe(true);
    expect(covers('What did Melanie do in May 2023?', '2023-06-02')).toBe(false);
    expect(covers('what did I note yesterday', '2023-08-19')).toBe(true);
    expect(covers('what did I note yesterday', '2023-08-10')).toBe(false);
    expect(covers('the plan from last week', '2023-08-11')).toBe(true);
    expect(covers('the plan from last week', '2023-07-30')).toBe(false);
    expect(covers('what happened on 8 May', '2023-05-08')).toBe(true);
    expect(covers('what changed in 2022', '2022-11-03')).toBe(true);
    expect(covers('what changed in 2022', '2023-01-03')).toBe(false);
  });

  it('names no period for a query without a date, for "now" or for a bare time of day', () => {
    expect(queryPeriods('When did Caroline go to the support group?', at)).toEqual([]);
    expect(queryPeriods('What may help Alice now?', at)).toEqual([]);
    expect(queryPeriods('the call at 5pm', at)).toEqual([]);
  });
});

describe('chunkDates', () => {
  it('takes the day of a day log, the date of an ingested session heading and the memory creation time', () => {
    const dates = chunkDates({ path: 'alice/episodic/2023-05-08.md', heading: 'Session 2023-05-09 13:56 UTC · chat.json', created: day('2023-05-10') });
    expect(dates).toEqual([day('2023-05-10'), day('2023-05-08'), day('2023-05-09')]);
  });
});

describe('withPeriods', () => {
  // As a search applies the signal: the query's periods, then the lift.
  const withDates = (candidates: Parameters<typeof withPeriods>[0], query: string, when: Date, share: number) =>
    withPeriods(candidates, share > 0 ? queryPeriods(query, when) : ([] as Period[]), share);

  it('a day log of the day the query names outranks an equal match of another day', () => {
    const out = withDates(
      [cand('other', 0.5, { path: 'alice/episodic/2023-03-01.md' }), cand('log', 0.5, { path: 'alice/episodic/2023-08-19.md' })],
      'what did we decide yesterday?',
      at,
      0.2,
    );
    expect(out.map((c) => c.hit.record.chunkId)).toEqual(['log', 'other']);
  });

  it('a `mem add` fact created in the month the query names is lifted; the signal is not a filter', () => {
    const out = withDates(
      [cand('fact', 0.4, { created: '2023-05-12T09:00:00Z' }), cand('strong', 0.9, { created: '2021-01-01T00:00:00Z' })],
      'what did Alice buy in May 2023?',
      at,
      0.2,
    );
    expect(out.map((c) => c.hit.record.chunkId)).toEqual(['strong', 'fact']);
    expect(out[1]!.relevance).toBeGreaterThan(0.4 / 1.2);
  });

  it('a query without a date, or share 0, changes nothing', () => {
    const input = [cand('a', 0.3, {})];
    expect(withDates(input, 'where does Alice live', at, 0.2)).toBe(input);
    expect(withDates(input, 'what happened yesterday', at, 0)).toBe(input);
  });

  it('property: a chunk dated in the period never scores lower than the same chunk dated outside it, and stays in [0, 1]', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (relevance, share) => {
        const q = 'what happened last week?';
        const [outside] = withDates([cand('a', relevance, { created: '2022-01-01T00:00:00Z' })], q, at, share);
        const [inside] = withDates([cand('a', relevance, { created: '2023-08-14T10:00:00Z' })], q, at, share);
        expect(inside!.relevance).toBeGreaterThanOrEqual(outside!.relevance);
        expect(inside!.relevance).toBeLessThanOrEqual(1 + 1e-12);
        expect(outside!.relevance).toBeGreaterThanOrEqual(0);
      }),
    );
  });
});
