// Covers searchMemories when a scope holds a few context windows that match the query worse than every unit: the
// window requests return them anyway, and they must neither move the units' relevance nor lift their own units.
import { describe, expect, it } from 'vitest';

import { syncIndex } from '../../../src/services/core/sync.js';
import { searchMemories } from '../../../src/services/search.js';
import { InMemoryIndex } from '../../support/fakes.js';
import { tempRoot } from '../../support/temp-root.js';
import { unitDeps } from '../../support/unit-deps.js';

// Facts of one unit each (no windows), all about the query's subject.
const FACTS: Record<string, string> = {
  'alice/semantic/key.md': 'The spare key of the flat hangs under the blue flower pot.\n',
  'alice/semantic/flat.md': 'The flat is on the third floor; a spare key opens the back door too.\n',
};

// The scope's only windows: a log of another subject, one section of several units, one of which names the flat
// in passing (so BM25 returns its windows, below every unit: long, and one query word).
const GARDEN = `---
type: episodic
---
# 2026-11-30

- Tomatoes planted along the south fence behind the flat, with stakes, twine and a layer of straw against the frost
- Compost turned and watered twice, the heap covered with an old tarpaulin and weighed down with bricks
- Seeds for next spring ordered online: beans, peas, two kinds of lettuce, radishes and a tray of marigolds
`;

async function searchable() {
  const root = await tempRoot({ ...FACTS, 'alice/episodic/2026-11-30.md': GARDEN });
  const index = new InMemoryIndex();
  // The fake counts the query's words a row holds, so a window scores at least as its best unit; Milvus's BM25
  // normalises by length and puts a long window that names one query word below the short units that name several.
  const count = index.search.bind(index);
  index.search = async (request) => (await count(request)).map((h) => (h.record.kind === 'window' ? { ...h, score: h.score / 10 } : h));
  const deps = unitDeps(root, { index });
  await syncIndex(deps);
  // BM25 alone (the test's embedder hashes text), relevance alone, the other signals off: what differs is the windows.
  const search = (windows?: number) =>
    searchMemories(
      deps,
      { query: 'where is the spare key of the flat', user: 'alice', mode: 'bm25', unit: 'chunk', k: 20, rescore: false, track: false },
      { names: 0, dates: 0, sectionNeighbour: 0, ...(windows !== undefined ? { windows } : {}) },
    );
  return { index, search };
}

describe('windows that match worse than every unit', () => {
  it('the scope has windows, over the garden log only', async () => {
    const { index } = await searchable();
    const windows = [...index.rows.values()].filter((r) => r.kind === 'window');
    expect(windows.length).toBeGreaterThan(0);
    expect(windows.every((w) => w.path === 'alice/episodic/2026-11-30.md')).toBe(true);
  });

  it('leave every unit with the relevance it has without window requests', async () => {
    const { index, search } = await searchable();
    const withWindows = await search();
    // The premise: BM25 returns the garden log's windows too.
    const windows = await index.search({
      mode: 'bm25',
      scope: { users: ['alice'] },
      queryText: 'where is the spare key of the flat',
      limit: 40,
      kind: 'window',
    });
    expect(windows.length).toBeGreaterThan(0);
    const without = await search(0);
    const relevance = (results: typeof without) => new Map(results.map((r) => [`${r.path}:${r.lines[0]}`, r.scores.relevance]));
    expect(relevance(withWindows)).toEqual(relevance(without));
    // None of the garden log's lines gained a window's relevance.
    expect(withWindows.filter((r) => r.scores.window !== undefined)).toEqual([]);
  });
});
