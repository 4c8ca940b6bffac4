// Covers getMemory on the fakes: by id, within a user's scope, hand-written files found, unknown and invalid ids.
import { describe, expect, it } from 'vitest';

import { NotFoundError, UsageError } from '../../../src/errors.js';
import { syncIndex } from '../../../src/services/core/sync.js';
import { getMemory } from '../../../src/services/get.js';
import { memoryFile, useCaseRoot } from '../../support/use-case-fixture.js';

const TREE = {
  'ann/semantic/tea.md': memoryFile({ id: 'tea', user: 'ann', tags: ['drinks'] }, 'Ann drinks green tea.'),
  'bob/semantic/car.md': memoryFile({ id: 'car', user: 'bob' }, 'Bob drives a red car.'),
};

describe('getMemory', () => {
  it('reads a memory by id, with its metadata and body, on a root never indexed', async () => {
    const r = await useCaseRoot(TREE);
    expect(await getMemory(r.deps, { id: 'tea' })).toMatchObject({
      id: 'tea',
      user: 'ann',
      type: 'semantic',
      status: 'active',
      tags: ['drinks'],
      path: 'ann/semantic/tea.md',
      content: 'Ann drinks green tea.',
    });
    expect(await r.deps.manifest.exists()).toBe(true);
  });

  it("reports another user's memory as not found, without revealing it", async () => {
    const r = await useCaseRoot(TREE);
    expect(await getMemory(r.deps, { id: 'tea', user: 'ann' })).toMatchObject({ id: 'tea' });
    const err = await getMemory(r.deps, { id: 'tea', user: 'bob' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as Error).message).toBe('no memory with id tea for user bob');
  });

  it('finds a file written by hand after the last sync, and reports an unknown id as not found', async () => {
    const r = await useCaseRoot(TREE);
    await syncIndex(r.deps);
    await r.write('ann/semantic/jam.md', memoryFile({ id: 'jam', user: 'ann' }, 'Ann makes plum jam.'));
    expect(await getMemory(r.deps, { id: 'jam' })).toMatchObject({ path: 'ann/semantic/jam.md' });
    await expect(getMemory(r.deps, { id: 'nothing-here' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('rejects invalid ids and user ids as usage errors', async () => {
    const r = await useCaseRoot(TREE);
    await expect(getMemory(r.deps, { id: '../etc/passwd' })).rejects.toBeInstanceOf(UsageError);
    await expect(getMemory(r.deps, { id: 'tea', user: 'a b' })).rejects.toBeInstanceOf(UsageError);
  });
});
