// Covers forgetMemories on the fakes: by id, a whole user, a query (preview, then apply), with one commit each,
// files, index rows, cached vectors and access stats gone; scope and validation errors.
import { describe, expect, it } from 'vitest';

import { NotFoundError, UsageError } from '../../../src/errors.js';
import { syncIndex } from '../../../src/services/core/sync.js';
import { forgetMemories } from '../../../src/services/forget.js';
import { accessKey } from '../../../src/services/ports.js';
import { memoryFile, useCaseRoot } from '../../support/use-case-fixture.js';

const TREE = {
  'ann/semantic/tea.md': memoryFile({ id: 'tea', user: 'ann' }, 'Ann drinks green tea every morning.'),
  'ann/semantic/cat.md': memoryFile({ id: 'cat', user: 'ann' }, 'Ann has a grey cat called Miso.'),
  'bob/semantic/car.md': memoryFile({ id: 'car', user: 'bob' }, 'Bob drives a red car.'),
};

async function synced() {
  const r = await useCaseRoot(TREE);
  await syncIndex(r.deps);
  return r;
}

describe('forgetMemories', () => {
  it('removes a memory by id everywhere: file, index rows, cached vectors, access stats; one commit', async () => {
    const r = await synced();
    const lists = await r.deps.manifest.chunksOf([['ann/semantic/tea.md', (await r.deps.manifest.load())!.get('ann/semantic/tea.md')!]]);
    const [hash] = lists.get('ann/semantic/tea.md')!.map((c) => c.textHash);
    r.deps.access.touch([accessKey('ann', 'tea')], Date.now());
    await r.deps.access.settle();
    const result = await forgetMemories(r.deps, { ids: ['tea'] });
    expect(result).toEqual({
      removed: [{ id: 'tea', path: 'ann/semantic/tea.md' }],
      missing: [],
      regenerated: [],
      audit: { by: 'Test <test@localhost>', count: 1 },
      verified: { indexRows: 0, index: 'compacted', cachedVectorsRemoved: 0, accessRecordsRemoved: 0, stateFiles: expect.any(Number), stateHits: [] },
    });
    expect(await r.exists('ann/semantic/tea.md')).toBe(false);
    expect(r.index.rowsOf('ann/semantic/tea.md')).toEqual([]);
    expect((await r.deps.cache.getMany([hash!])).size).toBe(0);
    expect(await r.deps.access.get([accessKey('ann', 'tea')])).toEqual(new Map());
    expect(r.audit.commits).toHaveLength(1);
    expect(r.audit.commits[0]!.paths).toEqual(['ann/semantic/tea.md']);
    // An audit record: the user and a count, never the id (a slug of the text).
    expect(r.audit.commits[0]!.message).toMatch(/^memdir: FORGET ann\n[\s\S]*action: FORGET\nuser: ann\ncount: 1/);
    expect(r.audit.commits[0]!.message).not.toContain('tea');
    expect(r.index.rowsOf('ann/semantic/cat.md')).toHaveLength(1);
  });

  it('forgetting a correction memdir wrote puts back the memory it had superseded, in the same commit, with no dangling link', async () => {
    const r = await useCaseRoot({
      'ann/semantic/home.md': memoryFile({ id: 'home', user: 'ann', key: 'home', status: 'superseded', superseded_by: 'madrid' }, 'Ann lives in Berlin.'),
      'ann/semantic/madrid.md': memoryFile({ id: 'madrid', user: 'ann', key: 'home', supersedes: 'home' }, 'Ann lives in Madrid.'),
      'ann/semantic/club.md': memoryFile({ id: 'club', user: 'ann', status: 'consolidated', consolidated_into: 'sum' }, 'Ann joined a chess club.'),
      'ann/semantic/sum.md': memoryFile({ id: 'sum', user: 'ann', sources: ['club'] }, 'Ann plays chess at a club.'),
    });
    await syncIndex(r.deps);
    const result = await forgetMemories(r.deps, { ids: ['madrid', 'sum'], user: 'ann' });
    expect(result.restored).toEqual([
      { id: 'club', path: 'ann/semantic/club.md' },
      { id: 'home', path: 'ann/semantic/home.md' },
    ]);
    const home = await r.read('ann/semantic/home.md');
    expect(home).toMatch(/status: active/);
    expect(home).not.toContain('superseded_by');
    expect(await r.read('ann/semantic/club.md')).not.toContain('consolidated_into');
    expect(r.index.rowsOf('ann/semantic/home.md').map((row) => row.status)).toEqual(['active']);
    expect(r.index.rowsOf('ann/semantic/club.md').map((row) => row.status)).toEqual(['active']);
    expect(r.audit.commits).toHaveLength(1);
    expect(r.audit.commits[0]!.paths.sort()).toEqual(['ann/semantic/club.md', 'ann/semantic/home.md', 'ann/semantic/madrid.md', 'ann/semantic/sum.md']);
  });

  it('a memory another correction still supersedes keeps its status when one of its correctors is forgotten', async () => {
    const r = await useCaseRoot({
      'ann/semantic/home.md': memoryFile({ id: 'home', user: 'ann', status: 'superseded', superseded_by: 'madrid' }, 'Ann lives in Berlin.'),
      'ann/semantic/madrid.md': memoryFile({ id: 'madrid', user: 'ann', supersedes: 'home' }, 'Ann lives in Madrid.'),
      'ann/semantic/rome.md': memoryFile({ id: 'rome', user: 'ann', supersedes: 'home' }, 'Ann lives in Rome.'),
    });
    await syncIndex(r.deps);
    const result = await forgetMemories(r.deps, { ids: ['madrid'], user: 'ann' });
    expect(result.restored).toBeUndefined();
    expect(r.index.rowsOf('ann/semantic/home.md').map((row) => row.status)).toEqual(['superseded']);
    expect(await r.read('ann/semantic/home.md')).toMatch(/status: superseded\n[\s\S]*superseded_by: rome\n/);
  });

  it("forgets everything about a user and nobody else's memories", async () => {
    const r = await synced();
    const result = await forgetMemories(r.deps, { user: 'ann', all: true });
    expect(result.removed.map((m) => m.id).sort()).toEqual(['cat', 'tea']);
    expect([...r.index.rows.values()].map((row) => row.user)).toEqual(['bob']);
    expect(await r.exists('bob/semantic/car.md')).toBe(true);
    expect(r.audit.commits[0]!.message).toContain('action: FORGET-USER');
  });

  it("does not forget another user's memory when a user is given", async () => {
    const r = await synced();
    await expect(forgetMemories(r.deps, { ids: ['car'], user: 'ann' })).rejects.toBeInstanceOf(NotFoundError);
    expect(await r.exists('bob/semantic/car.md')).toBe(true);
    expect(r.audit.commits).toEqual([]);
  });

  it('previews a query forget without changing anything, then applies it', async () => {
    const r = await synced();
    const preview = await forgetMemories(r.deps, { user: 'ann', query: 'green tea' });
    expect(preview.removed).toEqual([]);
    expect(preview.preview!.map((p) => p.id)).toEqual(['tea']);
    expect(await r.exists('ann/semantic/tea.md')).toBe(true);
    const applied = await forgetMemories(r.deps, { user: 'ann', query: 'green tea', apply: true });
    expect(applied.removed.map((m) => m.id)).toEqual(['tea']);
    expect(await r.exists('ann/semantic/cat.md')).toBe(true);
  });

  it('rejects what it cannot do safely as usage errors, and unknown ids as not found', async () => {
    const r = await synced();
    await expect(forgetMemories(r.deps, {})).rejects.toBeInstanceOf(UsageError);
    // No ids is never "all": forgetting every memory of a user is said explicitly.
    await expect(forgetMemories(r.deps, { user: 'ann' })).rejects.toThrow(/--all/);
    await expect(forgetMemories(r.deps, { user: 'ann', ids: [] })).rejects.toBeInstanceOf(UsageError);
    await expect(forgetMemories(r.deps, { all: true })).rejects.toBeInstanceOf(UsageError);
    await expect(forgetMemories(r.deps, { user: 'ann', all: true, ids: ['tea'] })).rejects.toBeInstanceOf(UsageError);
    expect(await r.exists('ann/semantic/tea.md')).toBe(true);
    await expect(forgetMemories(r.deps, { query: 'tea' })).rejects.toBeInstanceOf(UsageError);
    await expect(forgetMemories(r.deps, { user: 'ann', query: 'tea', ids: ['tea'] })).rejects.toBeInstanceOf(UsageError);
    await expect(forgetMemories(r.deps, { user: 'ann', query: '  ' })).rejects.toBeInstanceOf(UsageError);
    await expect(forgetMemories(r.deps, { ids: ['no-such-memory'] })).rejects.toBeInstanceOf(NotFoundError);
  });
});
