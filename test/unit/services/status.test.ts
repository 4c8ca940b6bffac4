// Covers memoryStatus on the fakes: counts per user, type and status, and each kind of drift between files and index.
import { rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { syncIndex } from '../../../src/services/core/sync.js';
import { memoryStatus } from '../../../src/services/status.js';
import { memoryFile, useCaseRoot } from '../../support/use-case-fixture.js';

const TREE = {
  'ann/semantic/tea.md': memoryFile({ id: 'tea', user: 'ann' }, 'Ann drinks green tea.'),
  'ann/episodic/trip.md': memoryFile({ id: 'trip', user: 'ann', type: 'episodic', status: 'expired' }, 'Ann went to Porto.'),
  'bob/semantic/car.md': memoryFile({ id: 'car', user: 'bob' }, 'Bob drives a red car.'),
};

describe('memoryStatus', () => {
  it('reports every file as unindexed before the first sync, and changes nothing', async () => {
    const r = await useCaseRoot(TREE);
    const report = await memoryStatus(r.deps);
    expect(report.drift).toMatchObject({ unindexed: Object.keys(TREE).sort(), changed: [], deleted: [], inSync: false });
    expect(report).toMatchObject({ files: 3, chunks: 0, indexRows: 0, users: {} });
    expect(await r.deps.manifest.exists()).toBe(false);
  });

  it('counts memories per user, type and status once in sync', async () => {
    const r = await useCaseRoot(TREE);
    await syncIndex(r.deps);
    const report = await memoryStatus(r.deps);
    expect(report.drift.inSync).toBe(true);
    expect(report).toMatchObject({ root: r.root, index: 'memory://test', embedding: 'hash-test (8 dims)', files: 3, chunks: 3, indexRows: 3 });
    expect(report.users).toEqual({
      ann: { memories: 2, byType: { semantic: 1, episodic: 1 }, byStatus: { active: 1, expired: 1 } },
      bob: { memories: 1, byType: { semantic: 1 }, byStatus: { active: 1 } },
    });
  });

  it('counts a memory past its expiry as expired, as search and list do, before `mem gc` marks its file', async () => {
    // The fixture's clock says 2026-12-01T12:00Z: meeting has lapsed, call has not.
    const r = await useCaseRoot({
      'ann/working/meeting.md': memoryFile({ id: 'meeting', user: 'ann', type: 'working', expires: '2026-12-01T00:00:00.000Z' }, 'Ann is in a meeting.'),
      'ann/working/call.md': memoryFile({ id: 'call', user: 'ann', type: 'working', expires: '2026-12-02T00:00:00.000Z' }, 'Ann waits for a call.'),
    });
    await syncIndex(r.deps);
    const report = await memoryStatus(r.deps);
    expect(report.users.ann).toEqual({ memories: 2, byType: { working: 2 }, byStatus: { active: 1, expired: 1 } });
  });

  it('names changed and deleted files, and rows that do not match the manifest', async () => {
    const r = await useCaseRoot(TREE);
    await syncIndex(r.deps);
    await utimes(join(r.root, 'ann/semantic/tea.md'), new Date(), new Date(Date.now() + 60_000));
    await rm(join(r.root, 'bob/semantic/car.md'));
    r.index.rows.clear();
    const { drift } = await memoryStatus(r.deps);
    expect(drift).toEqual({
      unindexed: [],
      changed: ['ann/semantic/tea.md'],
      deleted: ['bob/semantic/car.md'],
      invalid: [],
      unchecked: [],
      rowsMismatch: true,
      inSync: false,
    });
  });

  it('names a file the sync cannot index (bad YAML, a new one or an edit) as invalid with its line, not unindexed or changed, and stays in sync', async () => {
    const r = await useCaseRoot(TREE);
    await syncIndex(r.deps);
    await writeFile(join(r.root, 'ann/semantic/bad.md'), '---\nid: bad\ntags: [a, b\n---\nbody\n');
    await writeFile(join(r.root, 'bob/semantic/car.md'), '---\nid: car\nimportance: high\n---\nBob drives a blue car.\n');
    await utimes(join(r.root, 'bob/semantic/car.md'), new Date(), new Date(Date.now() + 5000));
    expect((await syncIndex(r.deps)).errors.map((e) => e.path).sort()).toEqual(['ann/semantic/bad.md', 'bob/semantic/car.md']);
    const { drift } = await memoryStatus(r.deps);
    expect(drift).toEqual({
      unindexed: [],
      changed: [],
      deleted: [],
      invalid: [
        { path: 'ann/semantic/bad.md', line: 4, message: expect.stringMatching(/malformed YAML/) },
        { path: 'bob/semantic/car.md', line: 3, message: expect.stringMatching(/importance/) },
      ],
      unchecked: [],
      rowsMismatch: false,
      inSync: true,
    });
  });

  it('with more than 200 invalid files (no reindex changes them) checks the first 200 by path and lists the rest as unchecked, not unindexed', async () => {
    const r = await useCaseRoot(TREE);
    await syncIndex(r.deps);
    const bad = Array.from({ length: 230 }, (_, i) => `ann/semantic/bad-${String(i).padStart(3, '0')}.md`);
    for (const path of bad) await writeFile(join(r.root, path), '---\nid: x\nimportance: high\n---\nbody\n');
    expect((await syncIndex(r.deps)).errors).toHaveLength(230);
    const { drift } = await memoryStatus(r.deps);
    expect(drift.unindexed).toEqual([]);
    expect(drift.invalid.map((f) => f.path)).toEqual(bad.slice(0, 200));
    expect(drift.invalid[0]).toEqual({ path: bad[0], line: 3, message: expect.stringMatching(/importance/) });
    expect(drift.unchecked).toEqual(bad.slice(200));
    expect(drift.inSync).toBe(false);
  });
});
