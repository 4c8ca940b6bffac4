// Covers searchMemories over a transcript written with a heading per turn (no windows: each section is one unit):
// the reply that shares little with the query is lifted by the turn before it, and a note whose
// paragraphs share one section (the windows' ground) ranks as it did.
import { describe, expect, it } from 'vitest';

import { syncIndex } from '../../../src/services/core/sync.js';
import { searchMemories } from '../../../src/services/search.js';
import { DAY_LOG } from '../../support/day-log.js';
import { InMemoryIndex } from '../../support/fakes.js';
import { tempRoot } from '../../support/temp-root.js';
import { unitDeps } from '../../support/unit-deps.js';

const TRANSCRIPT = `---
type: episodic
---
# Session 4

## D4:1 Bob

Bob: where is the spare key of the flat kept?

## D4:2 Ann

Ann: It hangs under the blue flower pot by the door.

## D4:3 Bob

Bob: Lunch with the team at noon, pizza again.

## D4:4 Ann

Ann: The dentist appointment moved to Friday.
`;

// Another memory that shares the reply's one matching word, and no heading: it ranks as it would without the signal.
const DOOR = 'The garage door is painted red.\n';

async function searchable() {
  const root = await tempRoot({
    'alice/episodic/session-04.md': TRANSCRIPT,
    'alice/episodic/2026-11-30.md': DAY_LOG,
    'alice/semantic/door.md': DOOR,
  });
  const index = new InMemoryIndex();
  const deps = unitDeps(root, { index });
  await syncIndex(deps);
  // Relevance alone (no recency or importance), so the places say what the signal did.
  const search = (sectionNeighbour?: number) =>
    searchMemories(
      deps,
      { query: 'spare key flat door', user: 'alice', mode: 'bm25', unit: 'chunk', rescore: false, track: false },
      sectionNeighbour !== undefined ? { sectionNeighbour } : {},
    );
  return { index, search };
}

type Results = Awaited<ReturnType<Awaited<ReturnType<typeof searchable>>['search']>>;
const reply = (results: Results) => results.find((r) => r.path === 'alice/episodic/session-04.md' && r.content.includes('flower pot'))!;
const door = (results: Results) => results.find((r) => r.path === 'alice/semantic/door.md')!;

describe('search over a transcript with a heading per turn', () => {
  it('has no windows over it: each turn is a section of its own', async () => {
    const { index } = await searchable();
    const rows = [...index.rows.values()].filter((r) => r.path === 'alice/episodic/session-04.md');
    expect(rows.filter((r) => r.kind === 'window')).toEqual([]);
    expect(rows.filter((r) => r.kind === 'unit').length).toBeGreaterThanOrEqual(4);
  });

  it('lifts the reply after the matching turn above a memory that matches as little as the reply does', async () => {
    const { search } = await searchable();
    const results = await search();
    expect(reply(results).heading).toBe('Session 4 > D4:2 Ann');
    expect(reply(results).scores.relevance).toBeGreaterThan(door(results).scores.relevance);
    expect(results.indexOf(reply(results))).toBeLessThan(results.indexOf(door(results)));
    // Without the signal the two match alike: one word each.
    const without = await search(0);
    expect(reply(without).scores.relevance).toBeCloseTo(door(without).scores.relevance);
    expect(door(results).scores.relevance).toBeCloseTo(door(without).scores.relevance);
  });

  it('ranks the lines of a day log (one section, windows over it) as it did without the signal', async () => {
    const { search } = await searchable();
    const log = (results: Results) => results.filter((r) => r.path === 'alice/episodic/2026-11-30.md').map((r) => [r.lines, r.scores.relevance]);
    expect(log(await search())).toEqual(log(await search(0)));
  });
});
