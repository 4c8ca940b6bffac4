// Covers the diversity hook of searchMemories (in-memory index, keyword matching): per unit it gives a
// place to a comparable unit of another section; one result per memory (each result its own file) is not
// reordered by the section discount (keyword coverage alone could reorder memories).
import { describe, expect, it } from 'vitest';

import { syncIndex } from '../../../src/services/core/sync.js';
import { NO_DIVERSITY, type DiversityOptions } from '../../../src/services/retrieval/diversity.js';
import { searchMemories } from '../../../src/services/search.js';
import { InMemoryIndex } from '../../support/fakes.js';
import { tempRoot } from '../../support/temp-root.js';
import { unitDeps } from '../../support/unit-deps.js';

const LOG = `---
type: episodic
---
# 2026-11-30

## Morning

- The garden roses need water and the garden roses need pruning
- The garden roses bloom red, garden roses everywhere
- Garden roses again, the garden roses by the gate

## Evening

- The neighbour asked about the garden roses
`;
const FACT = 'Garden roses like acid soil.\n';

async function searchable() {
  const root = await tempRoot({ 'alice/episodic/2026-11-30.md': LOG, 'alice/semantic/roses.md': FACT });
  const deps = unitDeps(root, { index: new InMemoryIndex() });
  await syncIndex(deps);
  return (unit: 'chunk' | 'memory', diversity: DiversityOptions, k = 3) =>
    searchMemories(deps, { query: 'garden roses', user: 'alice', mode: 'bm25', unit, k, rescore: false, track: false }, { windows: 0, diversity });
}

describe('search with diversity', () => {
  it('per unit, lets a comparable unit of another section into the top places one section filled', async () => {
    const search = await searchable();
    const headings = (rs: { heading: string }[]) => rs.map((r) => r.heading);
    const plain = await search('chunk', NO_DIVERSITY, 2);
    expect(new Set(headings(plain)).size).toBe(1);
    const diverse = await search('chunk', { by: 'file', factor: 0.5 }, 2);
    expect(new Set(diverse.map((r) => r.path)).size).toBe(2);
  });

  it('per memory, returns the same results in the same order', async () => {
    const search = await searchable();
    const paths = (rs: { path: string }[]) => rs.map((r) => r.path);
    expect(paths(await search('memory', { by: 'section', factor: 0.5 }))).toEqual(paths(await search('memory', NO_DIVERSITY)));
  });
});
