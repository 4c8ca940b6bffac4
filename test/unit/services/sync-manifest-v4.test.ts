// Covers the first sync over a version 4 manifest (chunk lists inside the entries, as memdir wrote it before
// issue 13's lean manifest): it converts it by itself, a no-op included, and later edits still delete stale rows by id.
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { readBase } from '../../../src/adapters/state/manifest-base.js';
import { JsonManifest } from '../../../src/adapters/state/json-manifest.js';
import { syncIndex } from '../../../src/services/core/sync.js';
import { edit, setup } from '../../support/sync-fixture.js';

const TREE = {
  'alice/semantic/tea.md': 'Alice likes green tea in the morning, every day.\n\nShe is allergic to peanuts and also to shellfish.\n',
  'bob/episodic/trip.md': '# Trip to Porto\n\nWe took the train on Monday morning, early.\n',
};

describe('a version 4 manifest', () => {
  it('is converted by the first sync (a no-op), and an edit after it deletes the stale row by chunk id', async () => {
    const s = await setup(TREE);
    await syncIndex(s.deps);
    const state = join(s.root, '.mem');
    const entries = (await s.deps.manifest.load())!;
    const lists = await s.deps.manifest.chunksOf(entries);
    // The manifest as version 4 wrote it: every entry with its chunk list, and no store beside it.
    const files: Record<string, object> = {};
    for (const [path, { chunkCount: _count, ...e }] of entries) files[path] = { ...e, chunks: lists.get(path) };
    const journal = '0f0f0f0f-0000-4000-8000-000000000000';
    await writeFile(join(state, 'manifest-test.json'), JSON.stringify({ version: 4, journal, files }));
    await writeFile(join(state, 'manifest-test.json.journal'), `${JSON.stringify({ journal })}\n`);
    for (const name of await readdir(state)) if (name.startsWith('manifest-test.json.chunks')) await rm(join(state, name));

    const deps = { ...s.deps, manifest: new JsonManifest(state, 'test') };
    const calls = { ...s.index.calls };
    expect(await syncIndex(deps)).toMatchObject({ files: 2, chunks: 3, upserted: 0, deleted: 0, skipped: 2, errors: [] });
    expect(s.index.calls).toEqual(calls);
    const base = (await readBase(join(state, 'manifest-test.json')))!;
    const saved = new Map(base.files);
    expect(base.version).toBe(6);
    expect(saved.get('alice/semantic/tea.md')).toMatchObject({ chunkCount: 2 });
    for (const e of saved.values()) expect(e).not.toHaveProperty('chunks');

    // A new process: only the converted manifest and the store.
    const after = { ...s.deps, manifest: new JsonManifest(state, 'test') };
    const before = s.index.rowsOf('alice/semantic/tea.md').map((r) => r.chunkId);
    await edit(s.root, 'alice/semantic/tea.md', 'Alice likes black tea now, every single day.\n\nShe is allergic to peanuts and also to shellfish.\n');
    expect(await syncIndex(after)).toMatchObject({ upserted: 2, deleted: 1, skipped: 1, errors: [] });
    expect(s.index.calls.deleteChunks).toBe(calls.deleteChunks + 1);
    expect(s.index.calls.deleteStale).toBe(calls.deleteStale);
    const rows = s.index.rowsOf('alice/semantic/tea.md');
    expect(rows.map((r) => r.content)).toEqual(['Alice likes black tea now, every single day.', 'She is allergic to peanuts and also to shellfish.']);
    expect(rows.map((r) => r.chunkId)).toContain(before[1]);
    expect(rows.map((r) => r.chunkId)).not.toContain(before[0]);
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
