// Covers the file-score hook of searchMemories (in-memory index, keyword matching): per memory, a note that
// matches in two places ranks above one whose only match is as good; per unit nothing changes.
import { describe, expect, it } from 'vitest';

import { syncIndex } from '../../../src/services/core/sync.js';
import { NO_FILE_SCORE, type FileScoreOptions } from '../../../src/services/retrieval/file-score.js';
import { searchMemories } from '../../../src/services/search.js';
import { InMemoryIndex } from '../../support/fakes.js';
import { tempRoot } from '../../support/temp-root.js';
import { unitDeps } from '../../support/unit-deps.js';

async function searchable() {
  const root = await tempRoot({
    'alice/semantic/twice.md': 'The garden roses by the gate.\n\nMore garden roses along the fence.\n',
    'alice/semantic/once.md': 'Garden roses in the old pot.\n\nThe shed needs a new roof.\n',
    'alice/semantic/best.md': 'Water the garden roses daily.\n',
    'alice/semantic/water.md': 'Water the tomatoes.\n',
  });
  const deps = unitDeps(root, { index: new InMemoryIndex() });
  await syncIndex(deps);
  return (unit: 'chunk' | 'memory', files?: FileScoreOptions) =>
    searchMemories(
      deps,
      { query: 'garden roses water', user: 'alice', mode: 'bm25', unit, k: 10, rescore: false, track: false },
      { windows: 0, ...(files ? { files } : {}) },
    );
}

describe('search with file scores', () => {
  it('per memory, ranks a note matching in two places above an equal single match', async () => {
    const search = await searchable();
    const ranked = await search('memory');
    const at = (name: string) => ranked.findIndex((r) => r.path.endsWith(`${name}.md`));
    expect(at('best')).toBe(0);
    expect(at('twice')).toBeLessThan(at('once'));
    expect(ranked[at('twice')]!.score).toBeGreaterThan(ranked[at('once')]!.score);
    // a note of one unit keeps its unit's relevance
    expect(ranked[at('best')]!.scores.relevance).toBeCloseTo(1, 12);
  });

  it('off, the two notes tie on their best unit', async () => {
    const search = await searchable();
    const ranked = await search('memory', NO_FILE_SCORE);
    const of = (name: string) => ranked.find((r) => r.path.endsWith(`${name}.md`))!.score;
    expect(of('twice')).toBeCloseTo(of('once'), 12);
  });

  it('per unit, scores are the units’ own', async () => {
    const search = await searchable();
    const on = await search('chunk');
    const off = await search('chunk', NO_FILE_SCORE);
    expect(on.map((r) => [r.path, r.lines, r.score])).toEqual(off.map((r) => [r.path, r.lines, r.score]));
  });
});
