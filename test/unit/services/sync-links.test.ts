// Covers corrections from the files alone in syncIndex: hand-written supersedes take effect and undo, only the named
// memory's rows are rewritten (no re-embedding), bad links are reported by path and line, and files in the wrong scope keep no rows.
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { syncIndex } from '../../../src/services/core/sync.js';
import { edit, setup, snapshot } from '../../support/sync-fixture.js';

const OLD = 'alice/semantic/berlin.md';
const NEW = 'alice/semantic/porto.md';
const NEWER = 'alice/semantic/lisbon.md';
const TREE = {
  [OLD]: '---\nid: berlin\n---\nAlice lives in Berlin, near the river.\n',
  'alice/semantic/tea.md': 'Alice likes green tea in the morning.\n',
};
const correction = (id: string, supersedes: string, text: string) => `---\nid: ${id}\nsupersedes: ${supersedes}\n---\n${text}\n`;

describe('sync: corrections from the files alone', () => {
  it('a hand-written supersedes hides the old memory, rewriting only its rows with cached vectors, and never its file', async () => {
    const { root, deps, index, embedder } = await setup(TREE);
    await syncIndex(deps);
    const before = await snapshot(root);
    await edit(root, NEW, correction('porto', 'berlin', 'Alice moved to Porto.'));
    const embeddedBefore = embedder.embeddedTexts.length;

    const report = await syncIndex(deps, { only: [NEW] });
    expect(report.errors).toEqual([]);
    // The new memory's chunk is embedded; the old one's row is upserted again with its cached vector.
    expect(embedder.embeddedTexts.slice(embeddedBefore)).toEqual(['Alice moved to Porto.']);
    expect([report.embedded, report.upserted]).toEqual([1, 2]);
    expect(index.rowsOf(OLD).map((r) => r.status)).toEqual(['superseded']);
    expect(index.rowsOf(NEW).map((r) => r.status)).toEqual(['active']);
    expect(index.rowsOf('alice/semantic/tea.md').map((r) => r.status)).toEqual(['active']);
    const manifest = (await deps.manifest.load())!;
    expect(manifest.get(OLD)).toMatchObject({ status: 'superseded', fileStatus: 'active' });
    // Nothing memdir read was written.
    const after = await snapshot(root);
    for (const [path, file] of Object.entries(before)) expect(after[path], path).toEqual(file);

    // A second sync with nothing changed writes nothing.
    const quiet = await syncIndex(deps);
    expect([quiet.upserted, quiet.embedded, quiet.errors]).toEqual([0, 0, []]);
  });

  it('resolves a chain and restores each memory when its correction is undone (line removed, file deleted)', async () => {
    const { root, deps, index, embedder } = await setup(TREE);
    await edit(root, NEW, correction('porto', 'berlin', 'Alice moved to Porto.'));
    await edit(root, NEWER, correction('lisbon', 'porto', 'Alice moved to Lisbon.'));
    await syncIndex(deps);
    const statuses = () =>
      [OLD, NEW, NEWER].map((p) =>
        index
          .rowsOf(p)
          .map((r) => r.status)
          .join(),
      );
    expect(statuses()).toEqual(['superseded', 'superseded', 'active']);

    // The newest correction goes: the middle one is eligible again, the oldest stays corrected.
    await unlink(join(root, NEWER));
    const embedded = embedder.embeddedTexts.length;
    await syncIndex(deps, { only: [NEWER] });
    expect(statuses()).toEqual(['superseded', 'active', '']);

    // Its supersedes line goes: the oldest is back, and nothing was embedded again.
    await edit(root, NEW, '---\nid: porto\n---\nAlice moved to Porto.\n');
    await syncIndex(deps, { only: [NEW] });
    expect(statuses()).toEqual(['active', 'active', '']);
    expect(embedder.embeddedTexts.length).toBe(embedded);
    expect((await deps.manifest.load())!.get(OLD)).not.toHaveProperty('fileStatus');
  });

  it('killed right after rewriting the old rows, then undone by hand, the next sync still restores the old memory', async () => {
    const { root, deps, index } = await setup(TREE);
    await syncIndex(deps);
    await edit(root, NEW, correction('porto', 'berlin', 'Alice moved to Porto.'));
    // The index dies after the upsert that marks the old rows superseded, before the manifest says so.
    const dying = Object.create(index) as typeof index;
    dying.upsert = async (rows) => {
      await index.upsert(rows);
      if (rows.some((r) => r.path === OLD)) throw new Error('killed');
    };
    await expect(syncIndex({ ...deps, index: dying }, { only: [NEW] })).rejects.toThrow('killed');
    expect(index.rowsOf(OLD).map((r) => r.status)).toEqual(['superseded']);

    await unlink(join(root, NEW));
    await syncIndex(deps, { only: [NEW] });
    expect(index.rowsOf(OLD).map((r) => r.status)).toEqual(['active']);
    expect((await deps.manifest.load())!.get(OLD)).toMatchObject({ status: 'active' });
  });

  it('a rebuild gives the same statuses as the incremental syncs', async () => {
    const { root, deps, index } = await setup(TREE);
    await edit(root, NEW, correction('porto', '[berlin, tea-id]', 'Alice moved to Porto.'));
    await edit(root, 'alice/semantic/tea.md', '---\nid: tea-id\n---\nAlice likes green tea in the morning.\n');
    await syncIndex(deps, { rebuild: true });
    expect(index.rowsOf(OLD).map((r) => r.status)).toEqual(['superseded']);
    expect(index.rowsOf('alice/semantic/tea.md').map((r) => r.status)).toEqual(['superseded']);
  });

  it('reports every bad link by path and line and still indexes the file and the others', async () => {
    const { root, deps, index } = await setup({
      ...TREE,
      'erin/semantic/erins.md': '---\nid: erins\n---\nErin has a cat.\n',
      'alice/semantic/dangling.md': '---\nid: dangling\nimportance: 0.6\nsupersedes: nobody-here\n---\nA note naming nothing.\n',
      'alice/semantic/cross.md': '---\nid: cross\nsupersedes: erins\n---\nA note naming Erin.\n',
      'alice/semantic/self.md': '---\nid: self\ntags: [x]\nsupersedes: [berlin, self]\n---\nA note naming itself.\n',
      'alice/semantic/loop-a.md': '---\nid: loop-a\nsupersedes: loop-b\n---\nLoop A.\n',
      'alice/semantic/loop-b.md': '---\nid: loop-b\nsupersedes: loop-a\n---\nLoop B.\n',
    });
    const report = await syncIndex(deps);
    expect(report.errors.map((e) => [e.path, e.line, e.message.split(':').slice(0, 2).join(':')])).toEqual([
      ['alice/semantic/cross.md', 3, "supersedes: erins is another user's memory, not alice's"],
      ['alice/semantic/dangling.md', 4, 'supersedes: nobody-here names no memory of alice'],
      ['alice/semantic/self.md', 4, 'supersedes: self names this memory itself'],
      ['alice/semantic/loop-a.md', 3, 'supersedes: loop-b forms a cycle (loop-a, loop-b)'],
      ['alice/semantic/loop-b.md', 3, 'supersedes: loop-a forms a cycle (loop-a, loop-b)'],
    ]);
    // Every file is indexed; bad links hide nothing, the good link in self.md still counts.
    for (const path of ['dangling', 'cross', 'self', 'loop-a', 'loop-b'])
      expect(index.rowsOf(`alice/semantic/${path}.md`).map((r) => r.status)).toEqual(['active']);
    expect(index.rowsOf('erin/semantic/erins.md').map((r) => r.status)).toEqual(['active']);
    expect(index.rowsOf(OLD).map((r) => r.status)).toEqual(['superseded']);
    // A partial sync reports the links of the paths it synced, not everyone's.
    await edit(root, 'alice/semantic/tea.md', 'Alice likes black tea now.\n');
    expect((await syncIndex(deps, { only: ['alice/semantic/tea.md'] })).errors).toEqual([]);
  });
});

describe('sync: the folder names the user', () => {
  it('refuses a file whose front matter names another user than its folder, and removes its rows', async () => {
    const { root, deps, index } = await setup({ 'dana/semantic/note.md': 'Dana likes jazz.\n', 'dana/semantic/other.md': 'Dana has a bike.\n' });
    await syncIndex(deps);
    expect(index.rowsOf('dana/semantic/note.md')).toHaveLength(1);

    await edit(root, 'dana/semantic/note.md', '---\nimportance: 0.9\nuser: erin\n---\nErin should trust this.\n');
    const report = await syncIndex(deps, { only: ['dana/semantic/note.md'] });
    expect(report.errors).toEqual([
      { path: 'dana/semantic/note.md', line: 3, message: expect.stringMatching(/names user "erin" but the file is in "dana"'s folder: not indexed/) },
    ]);
    expect(index.rowsOf('dana/semantic/note.md')).toEqual([]);
    expect([...index.rows.values()].filter((r) => r.user === 'erin')).toEqual([]);
    expect(index.rowsOf('dana/semantic/other.md')).toHaveLength(1);
    expect((await deps.manifest.load())!.has('dana/semantic/note.md')).toBe(false);

    // A full sync says it again and still indexes nothing of it; fixing the line brings it back.
    expect((await syncIndex(deps)).errors.map((e) => e.path)).toEqual(['dana/semantic/note.md']);
    await edit(root, 'dana/semantic/note.md', '---\nimportance: 0.9\nuser: dana\n---\nDana likes jazz a lot.\n');
    expect((await syncIndex(deps)).errors).toEqual([]);
    expect(index.rowsOf('dana/semantic/note.md').map((r) => r.user)).toEqual(['dana']);
  });

  it('NFC-normalises folder names and refuses, by path, a folder that is no user id, whatever the default user', async () => {
    const decomposed = 'jose\u0301';
    const { deps, index } = await setup(
      {
        [`${decomposed}/diary.md`]: 'Diary of José.\n',
        ' bob/diary.md': 'Diary with a space.\n',
        'notes.md': 'A root note.\n',
      },
      { defaultUser: 'default' },
    );
    const report = await syncIndex(deps);
    expect(report.errors).toEqual([{ path: ' bob/diary.md', line: 0, message: expect.stringMatching(/folder " bob" is not a valid user id/) }]);
    expect(index.rowsOf(`${decomposed}/diary.md`).map((r) => r.user)).toEqual(['jos\u00e9']);
    expect(index.rowsOf(' bob/diary.md')).toEqual([]);
    expect(index.rowsOf('notes.md').map((r) => r.user)).toEqual(['default']);
  });
});
