// Covers searchMemories over a transcript written with a heading per turn (no windows: each section is one unit):
// the reply that shares no word with the query is still found through the turn before it, and a note whose
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

async function searchable() {
  const root = await tempRoot({ 'alice/episodic/session-04.md': TRANSCRIPT, 'alice/episodic/2026-11-30.md': DAY_LOG });
  const index = new InMemoryIndex();
  const deps = unitDeps(root, { index });
  await syncIndex(deps);
  const search = (sectionNeighbour?: number) =>
    searchMemories(
      deps,
      { query: 'spare key', user: 'alice', mode: 'bm25', unit: 'chunk', track: false },
      sectionNeighbour !== undefined ? { sectionNeighbour } : {},
    );
  return { index, search };
}

describe('search over a transcript with a heading per turn', () => {
  it('has no windows over it: each turn is a section of its own', async () => {
    const { index } = await searchable();
    const rows = [...index.rows.values()].filter((r) => r.path === 'alice/episodic/session-04.md');
    expect(rows.filter((r) => r.kind === 'window')).toEqual([]);
    expect(rows.filter((r) => r.kind === 'unit').length).toBeGreaterThanOrEqual(4);
  });

  it('finds the reply that shares no word with the query through the turn before it', async () => {
    const { search } = await searchable();
    const reply = (await search()).find((r) => r.path === 'alice/episodic/session-04.md' && r.content.includes('flower pot'));
    expect(reply?.heading).toBe('Session 4 > D4:2 Ann');
    expect(reply!.scores.relevance).toBeGreaterThan(0);
    // Without the signal nothing brings it in: no word of it matches.
    expect((await search(0)).some((r) => r.path === 'alice/episodic/session-04.md' && r.content.includes('flower pot'))).toBe(false);
    // The turn after the reply is not the question's neighbour: it stays out.
    expect((await search()).some((r) => r.content.includes('pizza') && r.path === 'alice/episodic/session-04.md')).toBe(false);
  });

  it('ranks the lines of a day log (one section, windows over it) as it did without the signal', async () => {
    const { search } = await searchable();
    const log = (results: Awaited<ReturnType<typeof search>>) =>
      results.filter((r) => r.path === 'alice/episodic/2026-11-30.md').map((r) => [r.lines, r.scores.relevance]);
    expect(log(await search())).toEqual(log(await search(0)));
  });
});
