// Covers searchMemories over units and windows (in-memory index, keyword matching): windows are a signal and
// never a result, a unit that matches nothing itself joins through its window, and an atomic fact keeps its place.
import { describe, expect, it } from 'vitest';

import { syncIndex } from '../../../src/services/core/sync.js';
import { searchMemories } from '../../../src/services/search.js';
import { DAY_LOG } from '../../support/day-log.js';
import { InMemoryIndex } from '../../support/fakes.js';
import { tempRoot } from '../../support/temp-root.js';
import { unitDeps } from '../../support/unit-deps.js';

const LOG = DAY_LOG;
const FACT = 'The spare key of the office is in the top drawer.\n';

async function searchable() {
  const root = await tempRoot({ 'alice/episodic/2026-11-30.md': LOG, 'alice/semantic/office-key.md': FACT });
  const index = new InMemoryIndex();
  const deps = unitDeps(root, { index });
  await syncIndex(deps);
  const search = (windows?: number) =>
    searchMemories(deps, { query: 'spare key', user: 'alice', mode: 'bm25', unit: 'chunk', track: false }, windows !== undefined ? { windows } : {});
  return { index, search };
}

describe('search over units and windows', () => {
  it('indexes one row per list item and per fact, and windows only for the log', async () => {
    const { index } = await searchable();
    const rows = [...index.rows.values()];
    expect(rows.filter((r) => r.path.endsWith('2026-11-30.md') && r.kind === 'unit')).toHaveLength(4);
    expect(rows.filter((r) => r.path.endsWith('2026-11-30.md') && r.kind === 'window')).toHaveLength(2);
    expect(rows.filter((r) => r.path.endsWith('office-key.md')).map((r) => r.kind)).toEqual(['unit']);
  });

  it('returns units only, and brings in the reply that shares no word with the query through its window', async () => {
    const { index, search } = await searchable();
    const windows = new Set([...index.rows.values()].filter((r) => r.kind === 'window').map((r) => r.content));
    const results = await search();
    expect(results.every((r) => !windows.has(r.content))).toBe(true);
    expect(results.map((r) => r.content)).toContainEqual(expect.stringContaining('under the blue flower pot'));
    const reply = results.find((r) => r.content.includes('flower pot'))!;
    expect(reply.lines).toEqual([7, 7]);
    expect(reply.scores.window).toBeGreaterThan(0);
    // Without windows the reply is not found: nothing in it matches.
    expect((await search(0)).some((r) => r.content.includes('flower pot'))).toBe(false);
  });

  it('leaves the relevance of an atomic fact (no window) as it is without windows', async () => {
    const { search } = await searchable();
    const rankOf = (results: { path: string }[]) => results.findIndex((r) => r.path === 'alice/semantic/office-key.md');
    const withWindows = await search();
    const without = await search(0);
    expect(rankOf(without)).toBeGreaterThanOrEqual(0);
    expect(rankOf(withWindows)).toBeGreaterThanOrEqual(0);
    expect(withWindows.find((r) => r.path === 'alice/semantic/office-key.md')!.scores.relevance).toBeCloseTo(
      without.find((r) => r.path === 'alice/semantic/office-key.md')!.scores.relevance,
    );
  });
});
