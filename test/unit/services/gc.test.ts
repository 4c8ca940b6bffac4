// Covers collectGarbage on the fakes: expired memories are marked in their files, removed after the grace
// period, a dry run changes nothing, and one commit records what happened.
import { describe, expect, it } from 'vitest';

import { UsageError } from '../../../src/errors.js';
import { collectGarbage } from '../../../src/services/gc.js';
import { memoryFile, useCaseRoot, type UseCaseRoot } from '../../support/use-case-fixture.js';

/** The fixture's files as if committed: git holds each as it is, so a removal loses nothing. */
function committed(r: UseCaseRoot): UseCaseRoot {
  r.audit.uncommitted = async () => [];
  return r;
}

// The unit deps' clock is 2026-12-01T12:00Z; the grace period defaults to 30 days.
const TREE = {
  'ann/working/today.md': memoryFile({ id: 'today', user: 'ann', type: 'working', expires: '2026-12-01T00:00:00.000Z' }, 'Ann is in a meeting.'),
  'ann/working/long-ago.md': memoryFile({ id: 'long-ago', user: 'ann', type: 'working', expires: '2026-10-01T00:00:00.000Z' }, 'Ann was at the dentist.'),
  'ann/semantic/tea.md': memoryFile({ id: 'tea', user: 'ann', expires: '2027-01-01T00:00:00.000Z' }, 'Ann drinks green tea.'),
  'bob/working/call.md': memoryFile({ id: 'call', user: 'bob', type: 'working', expires: '2026-11-30T00:00:00.000Z' }, 'Bob has a call.'),
};

describe('collectGarbage', () => {
  it('marks newly expired memories, removes those past the grace period, and commits once', async () => {
    const r = committed(await useCaseRoot(TREE));
    const result = await collectGarbage(r.deps, {});
    expect(result.expired.map((m) => m.id).sort()).toEqual(['call', 'today']);
    expect(result.removed).toEqual([{ id: 'long-ago', path: 'ann/working/long-ago.md' }]);
    expect(await r.read('ann/working/today.md')).toMatch(/^status: expired$/m);
    expect(await r.exists('ann/working/long-ago.md')).toBe(false);
    expect(await r.read('ann/semantic/tea.md')).not.toMatch(/^status:/m);
    expect(r.index.rowsOf('ann/working/today.md')[0]!.status).toBe('expired');
    expect(r.index.rowsOf('ann/working/long-ago.md')).toEqual([]);
    expect(r.audit.commits).toHaveLength(1);
    expect(r.audit.commits[0]!.message).toMatch(/action: GC\nexpired: 2\nremoved: 1/);
  });

  it('changes nothing in a dry run, and keeps to one user when asked', async () => {
    const r = committed(await useCaseRoot(TREE));
    const before = await r.read('ann/working/today.md');
    const dry = await collectGarbage(r.deps, { dryRun: true, user: 'ann' });
    expect(dry).toMatchObject({ dryRun: true, expired: [{ id: 'today' }], removed: [{ id: 'long-ago' }] });
    expect(await r.read('ann/working/today.md')).toBe(before);
    expect(await r.exists('ann/working/long-ago.md')).toBe(true);
    expect(r.audit.commits).toEqual([]);
    const ann = await collectGarbage(r.deps, { user: 'ann' });
    expect(ann.expired.map((m) => m.id)).toEqual(['today']);
    expect(await r.read('bob/working/call.md')).not.toMatch(/^status:/m);
  });

  it('does not remove a file git does not hold as it is (written by hand, expires: long past): commits it marked expired, a later gc removes it', async () => {
    // The recording audit counts a file as uncommitted until a recorded commit names it: the fixture's files are not.
    const r = await useCaseRoot({
      'ann/semantic/old-news.md': memoryFile({ id: 'old-news', user: 'ann', expires: '2020-01-01T00:00:00.000Z' }, 'The wifi password is tulip.'),
    });
    const dry = await collectGarbage(r.deps, { dryRun: true });
    expect(dry).toMatchObject({ removed: [], kept: [{ id: 'old-news', path: 'ann/semantic/old-news.md' }] });
    const first = await collectGarbage(r.deps, {});
    expect(first).toMatchObject({ expired: [], removed: [], kept: [{ id: 'old-news', path: 'ann/semantic/old-news.md' }] });
    expect(await r.read('ann/semantic/old-news.md')).toMatch(/^status: expired$/m);
    expect(await r.read('ann/semantic/old-news.md')).toContain('The wifi password is tulip.');
    expect(r.audit.commits).toHaveLength(1);
    expect(r.audit.commits[0]!.paths).toEqual(['ann/semantic/old-news.md']);
    expect(r.audit.commits[0]!.message).toContain('kept: old-news (ann/semantic/old-news.md): not committed before, removed by a later gc');
    const second = await collectGarbage(r.deps, {});
    expect(second).toMatchObject({ removed: [{ id: 'old-news', path: 'ann/semantic/old-news.md' }], kept: [] });
    expect(await r.exists('ann/semantic/old-news.md')).toBe(false);
  });

  it('rejects an invalid user id', async () => {
    const r = await useCaseRoot(TREE);
    await expect(collectGarbage(r.deps, { user: 'a/b' })).rejects.toBeInstanceOf(UsageError);
  });
});
