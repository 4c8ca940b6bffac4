// Covers searchMemories reading ahead while it waits for the dense answers: the files of the best lexical hits are read
// before the dense search answers, the results are those of a search that reads them afterwards, and a search whose
// dense search fails still fails with that error.
import { describe, expect, it } from 'vitest';

import { syncIndex } from '../../../src/services/core/sync.js';
import { searchMemories, type SearchInput } from '../../../src/services/search.js';
import { InMemoryIndex } from '../../support/fakes.js';
import { tempRoot } from '../../support/temp-root.js';
import { unitDeps } from '../../support/unit-deps.js';

const FILES = {
  'alice/semantic/key.md': 'The spare key of the office is in the top drawer.\n',
  'alice/episodic/trip.md': 'We drove to the coast and the car key was lost on the beach.\n',
  'alice/semantic/tea.md': 'Alice drinks green tea every morning.\n',
};
const INPUT: SearchInput = { query: 'where is the spare key', user: 'alice', track: false };

async function indexed() {
  const root = await tempRoot(FILES);
  const index = new InMemoryIndex();
  const deps = unitDeps(root, { index });
  await syncIndex(deps);
  return { deps, index };
}

describe('reading ahead while the dense answers are awaited', () => {
  it('reads the files of the best lexical hits before the dense search answers, and ranks as before', async () => {
    const { deps, index } = await indexed();
    const expected = await searchMemories(deps, INPUT);
    const order: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const search = index.search.bind(index);
    index.search = async (req) => {
      if (req.mode === 'dense') {
        await gate;
        order.push(`dense ${req.kind ?? 'unit'}`);
      }
      return search(req);
    };
    // A file's stat comes first whether it is parsed or known from the earlier search.
    const stat = deps.files.stat.bind(deps.files);
    deps.files.stat = async (path) => (order.push(`read ${path}`), stat(path));
    const searching = searchMemories(deps, INPUT);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(order).toContain('read alice/semantic/key.md');
    expect(order.some((o) => o.startsWith('dense'))).toBe(false);
    open();
    const results = await searching;
    expect(results).toEqual(expected);
    // Each file read at most once by the search, read ahead or not.
    const reads = order.filter((o) => o.startsWith('read'));
    expect(new Set(reads).size).toBe(reads.length);
  });

  it("fails with the dense search's error", async () => {
    const { deps, index } = await indexed();
    const search = index.search.bind(index);
    index.search = async (req) => {
      if (req.mode === 'dense') throw new Error('dense down');
      return search(req);
    };
    await expect(searchMemories(deps, INPUT)).rejects.toThrow('dense down');
    await new Promise((resolve) => setTimeout(resolve, 20));
  });
});
