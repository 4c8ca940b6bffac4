// Covers listMemories on the fakes: one user's memories newest first, filters, limit, hand edits picked up, bad input.
import { describe, expect, it } from 'vitest';

import { UsageError } from '../../../src/errors.js';
import { listMemories } from '../../../src/services/list.js';
import { memoryFile, useCaseRoot } from '../../support/use-case-fixture.js';

const TREE = {
  'ann/semantic/tea.md': memoryFile({ id: 'tea', user: 'ann', updated: '2026-11-03T00:00:00.000Z' }, 'Ann drinks green tea.'),
  'ann/episodic/trip.md': memoryFile({ id: 'trip', user: 'ann', type: 'episodic', updated: '2026-11-05T00:00:00.000Z' }, 'Ann went to Porto.'),
  'ann/semantic/old.md': memoryFile({ id: 'old', user: 'ann', status: 'superseded' }, 'Ann drank black tea.'),
  'bob/semantic/car.md': memoryFile({ id: 'car', user: 'bob' }, 'Bob drives a red car.'),
};

describe('listMemories', () => {
  it("lists one user's active memories newest first, indexing the root on first use", async () => {
    const r = await useCaseRoot(TREE);
    const result = await listMemories(r.deps, { user: 'ann' });
    expect(result.memories.map((m) => m.id)).toEqual(['trip', 'tea']);
    expect(result.total).toBe(2);
    expect(result.memories[0]).toMatchObject({ path: 'ann/episodic/trip.md', user: 'ann', type: 'episodic', content: 'Ann went to Porto.' });
    expect(r.index.rows.size).toBeGreaterThan(0);
  });

  it('filters by type and status, and limits while reporting the total', async () => {
    const r = await useCaseRoot(TREE);
    expect((await listMemories(r.deps, { user: 'ann', types: ['semantic'] })).memories.map((m) => m.id)).toEqual(['tea']);
    expect((await listMemories(r.deps, { user: 'ann', statuses: ['superseded'] })).memories.map((m) => m.id)).toEqual(['old']);
    expect(await listMemories(r.deps, { user: 'ann', limit: 1 })).toMatchObject({ total: 2, memories: [{ id: 'trip' }] });
  });

  it('shows a file written by hand since the last call (every call syncs)', async () => {
    const r = await useCaseRoot(TREE);
    await listMemories(r.deps, { user: 'bob' });
    await r.write('bob/semantic/bike.md', memoryFile({ id: 'bike', user: 'bob', updated: '2026-11-20T00:00:00.000Z' }, 'Bob rides a bike.'));
    expect((await listMemories(r.deps, { user: 'bob' })).memories.map((m) => m.id)).toEqual(['bike', 'car']);
  });

  it('leaves out a memory whose expiry has passed, as search does; it is listed among the expired ones', async () => {
    // The fixture's clock says 2026-12-01T12:00Z.
    const r = await useCaseRoot({
      ...TREE,
      'ann/working/meeting.md': memoryFile(
        { id: 'meeting', user: 'ann', type: 'working', updated: '2026-11-30T00:00:00.000Z', expires: '2026-12-01T00:00:00.000Z' },
        'Ann is in a meeting until noon.',
      ),
      'ann/working/call.md': memoryFile(
        { id: 'call', user: 'ann', type: 'working', updated: '2026-11-29T00:00:00.000Z', expires: '2026-12-02T00:00:00.000Z' },
        'Ann waits for a call back.',
      ),
    });
    expect((await listMemories(r.deps, { user: 'ann' })).memories.map((m) => m.id)).toEqual(['call', 'trip', 'tea']);
    expect((await listMemories(r.deps, { user: 'ann', statuses: ['expired'] })).memories.map((m) => m.id)).toEqual(['meeting']);
  });

  it('rejects a bad limit, status or user id as usage errors', async () => {
    const r = await useCaseRoot(TREE);
    await expect(listMemories(r.deps, { user: 'ann', limit: 0 })).rejects.toBeInstanceOf(UsageError);
    await expect(listMemories(r.deps, { user: 'ann', limit: 1001 })).rejects.toBeInstanceOf(UsageError);
    await expect(listMemories(r.deps, { user: 'ann', statuses: ['gone' as 'active'] })).rejects.toBeInstanceOf(UsageError);
    await expect(listMemories(r.deps, { user: '../x' })).rejects.toBeInstanceOf(UsageError);
  });
});
