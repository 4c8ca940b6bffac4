// Covers showMemory on the fakes: the supersede chain in both directions, consolidation sources, links that
// never cross users, and the history the audit log gives.
import { describe, expect, it } from 'vitest';

import { NotFoundError } from '../../../src/errors.js';
import { showMemory } from '../../../src/services/show.js';
import { memoryFile, useCaseRoot } from '../../support/use-case-fixture.js';

const TREE = {
  'ann/semantic/home-1.md': memoryFile(
    { id: 'home-1', user: 'ann', status: 'superseded', superseded_by: 'home-2', created: '2026-01-01T00:00:00.000Z' },
    'Ann lives in Munich.',
  ),
  'ann/semantic/home-2.md': memoryFile(
    { id: 'home-2', user: 'ann', status: 'superseded', supersedes: 'home-1', superseded_by: 'home-3' },
    'Ann lives in Berlin.',
  ),
  'ann/semantic/home-3.md': memoryFile({ id: 'home-3', user: 'ann', supersedes: 'home-2' }, 'Ann lives in Lisbon.\nSince November.'),
  'ann/semantic/sum.md': memoryFile({ id: 'sum', user: 'ann', sources: ['home-3', 'gone', 'bob-car'] }, 'Where Ann lived.'),
  'bob/semantic/car.md': memoryFile({ id: 'bob-car', user: 'bob' }, 'Bob drives a red car.'),
};

describe('showMemory', () => {
  it('shows the whole supersede chain, oldest first, from any link', async () => {
    const r = await useCaseRoot(TREE);
    const shown = await showMemory(r.deps, { id: 'home-2' });
    expect(shown.memory).toMatchObject({ id: 'home-2', content: 'Ann lives in Berlin.' });
    // home-3's file says active, but the summary sum cites it: its effective status is consolidated.
    expect(shown.chain.map((l) => `${l.id} ${l.status}`)).toEqual(['home-1 superseded', 'home-2 superseded', 'home-3 consolidated']);
    expect(shown.chain[2]!.summary).toBe('Ann lives in Lisbon.');
    expect(shown.sources).toEqual([]);
    expect(shown.history).toEqual([]);
  });

  it("lists a summary's sources; a missing one or another user's shows as missing", async () => {
    const r = await useCaseRoot(TREE);
    const shown = await showMemory(r.deps, { id: 'sum', user: 'ann' });
    expect(shown.sources.map((l) => `${l.id} ${l.status}`)).toEqual(['home-3 consolidated', 'gone missing', 'bob-car missing']);
  });

  it("does not show another user's memory", async () => {
    const r = await useCaseRoot(TREE);
    await expect(showMemory(r.deps, { id: 'bob-car', user: 'ann' })).rejects.toBeInstanceOf(NotFoundError);
  });
});
