// Covers the first sync over a manifest this version does not read (an earlier JSON one, as memdir wrote before the
// MessagePack base): it reads as absent, every file is indexed again from the vector cache, and later syncs are
// incremental; and over a manifest whose chunk lists are lost.
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { BASE_VERSION, readBase } from '../../../src/adapters/state/manifest-base.js';
import { JsonManifest } from '../../../src/adapters/state/json-manifest.js';
import { syncIndex } from '../../../src/services/core/sync.js';
import { edit, setup } from '../../support/sync-fixture.js';

const TREE = {
  'alice/semantic/tea.md': 'Alice likes green tea in the morning, every day.\n\nShe is allergic to peanuts and also to shellfish.\n',
  'bob/episodic/trip.md': '# Trip to Porto\n\nWe took the train on Monday morning, early.\n',
};

describe('a manifest of another version', () => {
  it('reads as absent: the first sync indexes every file again (nothing embedded), writes the current version, and the next is a no-op', async () => {
    const s = await setup(TREE);
    await syncIndex(s.deps);
    const state = join(s.root, '.mem');
    const entries = (await s.deps.manifest.load())!;
    // The manifest as an earlier version wrote it: one JSON file, entries with their chunk lists.
    const lists = await s.deps.manifest.chunksOf(entries);
    const files: Record<string, object> = {};
    for (const [path, { chunkCount: _count, ...e }] of entries) files[path] = { ...e, chunks: lists.get(path) };
    const journal = '0f0f0f0f-0000-4000-8000-000000000000';
    await writeFile(join(state, 'manifest-test.json'), JSON.stringify({ version: 4, journal, files }));
    await writeFile(join(state, 'manifest-test.json.journal'), `${JSON.stringify({ journal })}\n`);

    const deps = { ...s.deps, manifest: new JsonManifest(state, 'test') };
    expect(await deps.manifest.load()).toBeNull();
    const report = await syncIndex(deps);
    expect(report).toMatchObject({ files: 2, chunks: 3, errors: [] });
    expect(report.embedded).toBe(0);
    const base = (await readBase(join(state, 'manifest-test.json')))!;
    expect(base.version).toBe(BASE_VERSION);
    expect(new Map(base.files).get('alice/semantic/tea.md')).toMatchObject({ chunkCount: 2 });
    expect(s.index.rowsOf('alice/semantic/tea.md').map((r) => r.content)).toEqual([
      'Alice likes green tea in the morning, every day.',
      'She is allergic to peanuts and also to shellfish.',
    ]);
    expect(s.index.rowsOf('bob/episodic/trip.md')).toHaveLength(1);

    const calls = { ...s.index.calls };
    expect(await syncIndex({ ...s.deps, manifest: new JsonManifest(state, 'test') })).toMatchObject({ upserted: 0, deleted: 0, skipped: 2, errors: [] });
    expect(s.index.calls).toEqual(calls);
  });

  it('without the chunk list an entry describes (the store lost), an edit deletes the stale rows by path', async () => {
    const s = await setup(TREE);
    await syncIndex(s.deps);
    const state = join(s.root, '.mem');
    for (const name of await readdir(state)) if (name.startsWith('manifest-test.json.chunks')) await rm(join(state, name));
    const calls = { ...s.index.calls };
    await edit(s.root, 'alice/semantic/tea.md', 'Alice likes black tea now, every single day.\n\nShe is allergic to peanuts and also to shellfish.\n');
    expect(await syncIndex({ ...s.deps, manifest: new JsonManifest(state, 'test') })).toMatchObject({ upserted: 2, errors: [] });
    expect(s.index.calls.deleteStale).toBe(calls.deleteStale + 1);
    expect(s.index.calls.deleteChunks).toBe(calls.deleteChunks);
    expect(s.index.rowsOf('alice/semantic/tea.md').map((r) => r.content)).toEqual([
      'Alice likes black tea now, every single day.',
      'She is allergic to peanuts and also to shellfish.',
    ]);
  });
});
