// Covers syncIndex with the real file, manifest, vector-cache and lock adapters on temp roots, and fake index/embedder.
import { rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { FsMemoryFiles } from '../../../src/adapters/files/fs-memory-files.js';
import { progressSaveDue, syncIndex, type SyncDeps } from '../../../src/services/core/sync.js';
import { hashVector, InMemoryIndex } from '../../support/fakes.js';
import { edit, setup, snapshot } from '../../support/sync-fixture.js';

// Paragraphs longer than maxChars / 2, so each is its own chunk at maxChars 80.
const P = [
  'Alice likes green tea in the morning, every day.',
  'She is allergic to peanuts and also to shellfish.',
  'Her favourite city is Lisbon; she has been there twice.',
];

const TREE = {
  'alice/semantic/tea.md': `---\nimportance: 0.5\ntags: [food]\n---\n${P.join('\n\n')}\n`,
  'bob/episodic/trip.md': '# Trip to Porto\n\nWe took the train on Monday morning, early.\n\n## Day 2\n\nRibeira walk and port wine.\n',
  'notes.md': 'A root note without a user folder.\n',
};
const TOTAL_CHUNKS = 3 + 2 + 1;

describe('syncIndex', () => {
  it('first sync embeds and indexes everything', async () => {
    const { deps, index, embedder } = await setup(TREE);
    const report = await syncIndex(deps);
    expect(report).toEqual({
      files: 3,
      chunks: TOTAL_CHUNKS,
      embedded: TOTAL_CHUNKS,
      upserted: TOTAL_CHUNKS,
      deleted: 0,
      skipped: 0,
      errors: [],
    });
    expect(index.rows.size).toBe(TOTAL_CHUNKS);
    expect(embedder.embeddedTexts).toHaveLength(TOTAL_CHUNKS);
    expect(embedder.documentCalls).toBe(Math.ceil(TOTAL_CHUNKS / 2)); // embedBatchSize 2
    expect(index.model).toEqual({ name: 'hash-test', dimension: 8 });

    const tea = index.rowsOf('alice/semantic/tea.md');
    expect(tea.map((r) => r.content)).toEqual(P);
    expect(tea.map((r) => [r.lineStart, r.lineEnd])).toEqual([
      [5, 5],
      [7, 7],
      [9, 9],
    ]);
    for (const r of tea) {
      expect(r).toMatchObject({ user: 'alice', type: 'semantic', importance: 0.5, status: 'active', tags: ['food'], memoryId: 'alice/semantic/tea' });
      expect(r.vector).toEqual(hashVector(r.content, 8));
    }
    expect(index.rowsOf('bob/episodic/trip.md').map((r) => [r.heading, r.user, r.type])).toEqual([
      ['Trip to Porto', 'bob', 'episodic'],
      ['Trip to Porto > Day 2', 'bob', 'episodic'],
    ]);
    expect(index.rowsOf('notes.md')[0]).toMatchObject({ user: 'default', type: 'semantic', memoryId: 'notes' });
  });

  it('second sync with nothing changed embeds nothing, reads nothing and skips every file', async () => {
    const { deps, index, embedder, files } = await setup(TREE);
    await syncIndex(deps);
    const rowsBefore = structuredClone([...index.rows.entries()]);
    embedder.reset();
    files.reads = [];
    const upsertsBefore = index.calls.upsert;
    expect(index.calls.flush).toBe(1); // the first sync sealed its writes once

    const report = await syncIndex(deps);
    expect(index.calls.flush).toBe(1); // nothing written, nothing to seal
    expect(report).toEqual({ files: 3, chunks: TOTAL_CHUNKS, embedded: 0, upserted: 0, deleted: 0, skipped: 3, errors: [] });
    expect(embedder.documentCalls).toBe(0);
    expect(files.reads).toEqual([]);
    expect(index.calls.upsert).toBe(upsertsBefore);
    expect([...index.rows.entries()]).toEqual(rowsBefore);
  });

  it('editing one paragraph of a multi-paragraph file re-embeds exactly that text', async () => {
    const { root, deps, index, embedder } = await setup(TREE);
    await syncIndex(deps);
    const before = index.rowsOf('alice/semantic/tea.md');
    embedder.reset();

    const changed = 'She is allergic to peanuts only; shellfish is fine now.';
    await edit(root, 'alice/semantic/tea.md', `---\nimportance: 0.5\ntags: [food]\n---\n${P[0]}\n\n${changed}\n\n${P[2]}\n`);
    const report = await syncIndex(deps);

    expect(report.embedded).toBe(1);
    expect(embedder.embeddedTexts).toEqual([changed]);
    expect(report.skipped).toBe(2);
    expect(report.deleted).toBe(1);
    expect(report.upserted).toBe(3);
    expect(report.errors).toEqual([]);

    const after = index.rowsOf('alice/semantic/tea.md');
    expect(after.map((r) => r.content)).toEqual([P[0], changed, P[2]]);
    expect(after[0]!.chunkId).toBe(before[0]!.chunkId);
    expect(after[2]!.chunkId).toBe(before[2]!.chunkId);
    expect(after[1]!.chunkId).not.toBe(before[1]!.chunkId);
    expect(index.rows.has(before[1]!.chunkId)).toBe(false);
    expect(index.rows.size).toBe(TOTAL_CHUNKS);
  });

  it('a metadata-only change embeds nothing but updates the rows', async () => {
    const { root, deps, index, embedder } = await setup(TREE);
    await syncIndex(deps);
    const ids = index.rowsOf('alice/semantic/tea.md').map((r) => r.chunkId);
    embedder.reset();

    await edit(root, 'alice/semantic/tea.md', `---\nimportance: 0.9\ntags: [food]\n---\n${P.join('\n\n')}\n`);
    const report = await syncIndex(deps);

    expect(report.embedded).toBe(0);
    expect(embedder.documentCalls).toBe(0);
    expect(report.upserted).toBe(3);
    expect(report.deleted).toBe(0);
    const rows = index.rowsOf('alice/semantic/tea.md');
    expect(rows.map((r) => r.chunkId)).toEqual(ids);
    expect(rows.map((r) => r.importance)).toEqual([0.9, 0.9, 0.9]);
  });

  it('a touched but unchanged file is re-read once, not re-indexed', async () => {
    const { root, deps, index, files } = await setup(TREE);
    await syncIndex(deps);
    const upserts = index.calls.upsert;
    await edit(root, 'notes.md', TREE['notes.md']);
    files.reads = [];

    const report = await syncIndex(deps);
    expect(report).toMatchObject({ embedded: 0, upserted: 0, skipped: 3, errors: [] });
    expect(files.reads).toEqual(['notes.md']);
    expect(index.calls.upsert).toBe(upserts);

    files.reads = [];
    await syncIndex(deps);
    expect(files.reads).toEqual([]); // the new mtime was remembered
  });

  it('a file removed while the sync runs (after the scan, before the read) loses its rows too', async () => {
    const { root, deps, index } = await setup(TREE);
    await syncIndex(deps);
    await edit(root, 'bob/episodic/trip.md', '# Changed\n\nThis version is never read.\n');
    // The scan sees the changed file; it disappears just before it is read.
    class VanishingFiles extends FsMemoryFiles {
      override async read(path: string): Promise<Uint8Array> {
        if (path === 'bob/episodic/trip.md') await unlink(join(root, path));
        return super.read(path);
      }
    }
    const report = await syncIndex({ ...deps, files: new VanishingFiles(root) });
    expect(report.errors).toEqual([]);
    expect(index.rowsOf('bob/episodic/trip.md')).toEqual([]);
    expect([...(await deps.manifest.load())!.keys()]).not.toContain('bob/episodic/trip.md');
    expect(index.rows.size).toBe(TOTAL_CHUNKS - 2);
  });

  it('deleting a file removes its rows', async () => {
    const { root, deps, index } = await setup(TREE);
    await syncIndex(deps);
    await unlink(join(root, 'bob/episodic/trip.md'));

    const report = await syncIndex(deps);
    expect(report.deleted).toBe(2);
    expect(report.files).toBe(2);
    expect(report.chunks).toBe(TOTAL_CHUNKS - 2);
    expect(index.rowsOf('bob/episodic/trip.md')).toEqual([]);
    expect(index.rows.size).toBe(TOTAL_CHUNKS - 2);
    const manifest = await deps.manifest.load();
    expect([...manifest!.keys()].sort()).toEqual(['alice/semantic/tea.md', 'notes.md']);
  });

  it('emptying a file removes its rows', async () => {
    const { root, deps, index } = await setup(TREE);
    await syncIndex(deps);
    await edit(root, 'alice/semantic/tea.md', '---\nimportance: 0.5\n---\n');
    const report = await syncIndex(deps);
    expect(report.deleted).toBe(3);
    expect(index.rowsOf('alice/semantic/tea.md')).toEqual([]);
  });

  it('reports a broken file with path and line, indexes the others, and keeps the last good rows', async () => {
    const { root, deps, index } = await setup(TREE);
    await syncIndex(deps);
    const goodIds = index.rowsOf('alice/semantic/tea.md').map((r) => r.chunkId);

    // Line 3 has a wrongly typed importance.
    await edit(root, 'alice/semantic/tea.md', `---\ntags: [food]\nimportance: high\n---\n${P.join('\n\n')}\nmore\n`);
    await edit(root, 'alice/semantic/new.md', 'A new memory written while the other file was broken.\n');
    const report = await syncIndex(deps);

    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]).toMatchObject({ path: 'alice/semantic/tea.md', line: 3 });
    expect(report.errors[0]!.message).toMatch(/importance/);
    expect(index.rowsOf('alice/semantic/tea.md').map((r) => r.chunkId)).toEqual(goodIds);
    expect(index.rowsOf('alice/semantic/new.md')).toHaveLength(1);
    expect(report.deleted).toBe(0);

    // Still broken: reported again on the next run, rows still kept.
    const again = await syncIndex(deps);
    expect(again.errors.map((e) => [e.path, e.line])).toEqual([['alice/semantic/tea.md', 3]]);
    expect(index.rowsOf('alice/semantic/tea.md').map((r) => r.chunkId)).toEqual(goodIds);

    // Fixed: indexed again.
    await edit(root, 'alice/semantic/tea.md', `---\nimportance: 0.7\n---\n${P[0]}\n`);
    const fixed = await syncIndex(deps);
    expect(fixed.errors).toEqual([]);
    expect(index.rowsOf('alice/semantic/tea.md').map((r) => [r.content, r.importance])).toEqual([[P[0], 0.7]]);
  });

  it('reports binary, invalid UTF-8 and malformed YAML files by line and indexes nothing from them', async () => {
    const bad = new Uint8Array([...new TextEncoder().encode('ok line\nbad '), 0xff, 0x0a]);
    const { deps, index } = await setup({
      'a/bin.md': new Uint8Array([0x61, 0x0a, 0x62, 0x00]),
      'a/utf.md': bad,
      'a/yaml.md': '---\nid: x\nuser: [a, b\n---\nbody\n',
      'a/good.md': 'Fine.\n',
    });
    const report = await syncIndex(deps);
    const byPath = Object.fromEntries(report.errors.map((e) => [e.path, e]));
    expect(Object.keys(byPath).sort()).toEqual(['a/bin.md', 'a/utf.md', 'a/yaml.md']);
    expect(byPath['a/bin.md']!.line).toBe(2);
    expect(byPath['a/utf.md']!.line).toBe(2);
    expect(byPath['a/yaml.md']!.message).toMatch(/YAML/);
    expect(byPath['a/yaml.md']!.line).toBeGreaterThanOrEqual(3);
    expect(await index.listPaths()).toEqual(['a/good.md']);
    expect(report.files).toBe(4);
  });

  it('rebuild drops the index and re-embeds nothing thanks to the vector cache', async () => {
    const { deps, index, embedder } = await setup(TREE);
    await syncIndex(deps);
    const ids = [...index.rows.keys()].sort();
    embedder.reset();

    const report = await syncIndex(deps, { rebuild: true });
    expect(index.calls.drop).toBe(1);
    expect(report).toMatchObject({ files: 3, chunks: TOTAL_CHUNKS, embedded: 0, upserted: TOTAL_CHUNKS, skipped: 0, errors: [] });
    expect(embedder.documentCalls).toBe(0);
    expect([...index.rows.keys()].sort()).toEqual(ids);
    for (const row of index.rows.values()) {
      const expected = hashVector(row.content, 8);
      row.vector.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 5));
    }
  });

  it('a lost index and manifest are rebuilt from the cache, and orphan rows are removed', async () => {
    const { root, deps, embedder } = await setup(TREE);
    await syncIndex(deps);
    embedder.reset();
    await rm(join(root, '.mem', 'manifest-test.json'));
    const fresh = new InMemoryIndex();
    await fresh.open(embedder.identity);
    await fresh.upsert([{ ...(await firstRow(deps)), chunkId: 'dead', path: 'gone/old.md' }]);

    const report = await syncIndex({ ...deps, index: fresh });
    expect(report.embedded).toBe(0);
    expect(fresh.rows.size).toBe(TOTAL_CHUNKS);
    expect(await fresh.listPaths()).not.toContain('gone/old.md');
  });

  it('embeds a text shared by two files once', async () => {
    const { deps, index, embedder } = await setup({
      'alice/a.md': 'The very same sentence in two different files.\n',
      'bob/b.md': 'The very same sentence in two different files.\n',
    });
    const report = await syncIndex(deps);
    expect(report.embedded).toBe(1);
    expect(embedder.embeddedTexts).toEqual(['The very same sentence in two different files.']);
    expect(index.rows.size).toBe(2);
    expect(new Set([...index.rows.values()].map((r) => r.user))).toEqual(new Set(['alice', 'bob']));
  });

  it('reports and skips a file over maxFileBytes', async () => {
    const big = `# Log\n\n${'x'.repeat(70)}\n`.repeat(80);
    const { deps, index } = await setup({ ...TREE, 'alice/big.md': big });
    const report = await syncIndex(deps);
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]).toMatchObject({ path: 'alice/big.md', line: 1 });
    expect(report.errors[0]!.message).toMatch(/limit/);
    expect(index.rowsOf('alice/big.md')).toEqual([]);
    expect(index.rows.size).toBe(TOTAL_CHUNKS);
  });

  it('syncs only the given paths, treating a missing one as a deletion', async () => {
    const { root, deps, index, files } = await setup(TREE);
    await syncIndex(deps);
    await edit(root, 'notes.md', 'Changed root note, different text now.\n');
    await unlink(join(root, 'bob/episodic/trip.md'));
    files.reads = [];

    const report = await syncIndex(deps, { only: ['notes.md', 'bob/episodic/trip.md'] });
    expect(files.reads).toEqual(['notes.md']);
    expect(report.embedded).toBe(1);
    expect(index.rowsOf('notes.md').map((r) => r.content)).toEqual(['Changed root note, different text now.']);
    expect(index.rowsOf('bob/episodic/trip.md')).toEqual([]);
    expect(index.rowsOf('alice/semantic/tea.md')).toHaveLength(3);
    const manifest = await deps.manifest.load();
    expect([...manifest!.keys()].sort()).toEqual(['alice/semantic/tea.md', 'notes.md']);
  });

  it('serialises concurrent syncs and converges', async () => {
    const { deps, index, embedder } = await setup(TREE);
    const [a, b] = await Promise.all([syncIndex(deps), syncIndex(deps)]);
    expect(a.embedded + b.embedded).toBe(TOTAL_CHUNKS);
    expect(embedder.embeddedTexts).toHaveLength(TOTAL_CHUNKS);
    expect(index.rows.size).toBe(TOTAL_CHUNKS);
  });

  it('never modifies a file under the root outside its .mem state folder', async () => {
    const { root, deps } = await setup({
      ...TREE,
      'crlf.md': '---\r\nuser: carol\r\n---\r\nWindows line endings.\r\n',
      'bom.md': '\uFEFFText with a byte order mark.\n',
      'broken.md': '---\nimportance: high\n---\nx\n',
      '.git/config': '[core]\n',
      'readme.txt': 'not markdown',
    });
    const before = await snapshot(root);
    await syncIndex(deps);
    await syncIndex(deps);
    await syncIndex(deps, { rebuild: true });
    const after = await snapshot(root);
    expect(after).toEqual(before);
    expect(Object.keys(before).length).toBe(8);
  });

  it('writes without scanning the index: inserts new files, deletes the old chunks of an edited file by id', async () => {
    const { root, deps, index } = await setup(TREE);
    await syncIndex(deps);
    // A fresh index holds no rows of any path: plain inserts, no delete of any kind.
    expect(index.calls).toMatchObject({ insert: 1, upsert: 0, deleteChunks: 0, deleteStale: 0 });

    await edit(root, 'alice/semantic/tea.md', `${P[0]}\n\n${P[1]} Not any more.\n`);
    await edit(root, 'alice/semantic/new.md', 'A memory that was not there before, long enough.\n');
    const report = await syncIndex(deps);
    expect(report).toMatchObject({ upserted: 3, deleted: 2, errors: [] });
    // The known entry's stale chunks go by primary key; the new file is inserted; nothing deletes by path.
    expect(index.calls).toMatchObject({ insert: 2, upsert: 1, deleteChunks: 1, deleteStale: 0 });
    expect(index.rowsOf('alice/semantic/tea.md').map((r) => r.content)).toEqual([P[0], `${P[1]} Not any more.`]);
  });

  it('a batch never passes writeBatchRows by a file: each batch is one insert of at most that many rows', async () => {
    // Three chunks a file: at 8 rows a batch, two files fill one (6 rows); a third would pass 8.
    const tree: Record<string, string> = {};
    for (let i = 0; i < 7; i++) tree[`alice/semantic/m${i}.md`] = P.map((p) => `${p} (memory ${i})`).join('\n\n') + '\n';
    const { deps, index } = await setup(tree, { writeBatchRows: 8 });
    const sizes: number[] = [];
    const insert = index.insert.bind(index);
    index.insert = async (rows) => {
      sizes.push(rows.length);
      await insert(rows);
    };
    const report = await syncIndex(deps);
    expect(report).toMatchObject({ files: 7, upserted: 21, errors: [] });
    expect(sizes).toEqual([6, 6, 6, 3]);
    expect(index.rows.size).toBe(21);
  });

  it("saves a long sync's progress every 5 s at most, and only once a twentieth of the entries was written or 30 s passed", () => {
    const due = (elapsedMs: number, written: number, entries: number, lastSaveMs = 10) =>
      progressSaveDue({ elapsedMs, intervalMs: 5_000, lastSaveMs, written, entries });
    expect(due(4_999, 1_000, 1_000)).toBe(false);
    expect(due(5_000, 500, 10_000)).toBe(true);
    expect(due(5_000, 499, 10_000)).toBe(false);
    // At 50,000 entries a save (which costs O(entries)) waits for 2,500 written files: O(n) in all, not one every 5 s.
    expect(due(10_000, 2_000, 50_000)).toBe(false);
    expect(due(10_000, 2_500, 50_000)).toBe(true);
    expect(due(30_000, 1, 50_000)).toBe(true);
    // A slow save spaces the next one out; interval 0 (tests) saves after every batch.
    expect(due(6_000, 5_000, 5_000, 1_000)).toBe(false);
    expect(progressSaveDue({ elapsedMs: 0, intervalMs: 0, lastSaveMs: 0, written: 0, entries: 9 })).toBe(true);
  });

  it('opens the index while the embedder works, not after it', async () => {
    const { root, deps, index, embedder } = await setup(TREE);
    await syncIndex(deps);
    await edit(root, 'alice/semantic/tea.md', `${P[0]}\n\n${P[1]} Changed today.\n`);
    // Each sync opens the index on its first write. The embedder answers only once the index is being opened,
    // so a sync that opened it after embedding would never finish.
    let opening!: () => void;
    const opened = new Promise<void>((resolve) => (opening = resolve));
    const open = index.open.bind(index);
    index.open = (model) => (opening(), open(model));
    const embed = embedder.embedDocuments.bind(embedder);
    embedder.embedDocuments = async (texts) => (await opened, embed(texts));
    const opens = index.calls.open;
    const report = await syncIndex(deps);
    expect(report).toMatchObject({ embedded: 1, upserted: 2, deleted: 2, errors: [] });
    expect(index.calls.open).toBe(opens + 1);
  });
});

async function firstRow(deps: SyncDeps) {
  const index = deps.index as InMemoryIndex;
  return index.rows.values().next().value!;
}
