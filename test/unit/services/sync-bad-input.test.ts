// Covers sync on bad input (issue "Trustworthy under stress"): each bad file gets one error naming its path and line,
// the other files still index, and no file under the root is modified.
import { symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { FsMemoryFiles } from '../../../src/adapters/files/fs-memory-files.js';
import { syncIndex } from '../../../src/services/core/sync.js';
import { edit, setup, snapshot } from '../../support/sync-fixture.js';

const enc = (s: string) => new TextEncoder().encode(s);
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]);

const GOOD = {
  'alice/semantic/tea.md': '---\nimportance: 0.5\n---\nAlice likes green tea.\n',
  'bob/semantic/bike.md': 'Bob keeps his bike in the cellar.\n',
};

/** Every bad file, with the line its error must name and a word its message must contain. */
const BAD: Record<string, { content: string | Uint8Array; line: number; message: RegExp }> = {
  'bad/yaml.md': { content: '---\nid: x\ntags: [a, b\n---\nbody\n', line: 4, message: /malformed YAML/ },
  'bad/importance.md': { content: '---\nid: imp\nimportance: high\n---\nbody\n', line: 3, message: /importance/ },
  'bad/user-list.md': { content: '---\nuser: [a, b]\n---\nbody\n', line: 2, message: /user/ },
  'bad/not-a-mapping.md': { content: '---\n- just\n- a list\n---\nbody\n', line: 1, message: /mapping/ },
  'bad/binary.md': { content: PNG, line: 3, message: /binary/ },
  'bad/utf8.md': { content: new Uint8Array([...enc('fine\nstill fine\nbroken '), 0xc3, 0x28, ...enc('\n')]), line: 3, message: /UTF-8/ },
  'bad/crlf-yaml.md': { content: '---\r\nid: ok\r\nexpires: someday\r\n---\r\nbody\r\n', line: 3, message: /expires/ },
};

// Some cases build megabyte-sized files: a generous timeout for a loaded machine (no timing is asserted).
describe('sync on bad input', { timeout: 30_000 }, () => {
  it('reports each bad file once with path and line, indexes the good ones, and modifies nothing', async () => {
    const tree: Record<string, string | Uint8Array> = { ...GOOD };
    for (const [path, bad] of Object.entries(BAD)) tree[path] = bad.content;
    const { root, deps, index } = await setup(tree);
    const before = await snapshot(root);

    const report = await syncIndex(deps);
    expect(report.errors.map((e) => e.path).sort()).toEqual(Object.keys(BAD).sort());
    for (const e of report.errors) {
      const bad = BAD[e.path]!;
      expect([e.path, e.line]).toEqual([e.path, bad.line]);
      expect(e.message).toMatch(bad.message);
    }
    expect((await index.listPaths()).sort()).toEqual(Object.keys(GOOD).sort());
    // Reported again on the next run (they are never marked as indexed), still nothing modified.
    expect((await syncIndex(deps)).errors).toHaveLength(Object.keys(BAD).length);
    expect(await snapshot(root)).toEqual(before);
  });

  it('indexes BOM and CRLF files with the right text and lines', async () => {
    const { deps, index } = await setup({
      'a/bom.md': new Uint8Array([0xef, 0xbb, 0xbf, ...enc('---\nimportance: 0.9\n---\nStarts with a byte order mark.\n')]),
      'a/crlf.md': '---\r\nuser: a\r\nimportance: 0.3\r\n---\r\n# Title\r\n\r\nWindows line endings.\r\n',
    });
    expect((await syncIndex(deps)).errors).toEqual([]);
    expect(index.rowsOf('a/bom.md').map((r) => [r.content, r.importance, r.lineStart])).toEqual([['Starts with a byte order mark.', 0.9, 4]]);
    expect(index.rowsOf('a/crlf.md').map((r) => [r.user, r.content, r.lineStart, r.lineEnd])).toEqual([['a', '# Title\n\nWindows line endings.', 5, 7]]);
  });

  it('a file just over the limit gives both sizes in bytes, not "5.0 MB, over the 5.0 MB limit"', async () => {
    const { root, deps } = await setup(GOOD, { maxFileBytes: 5 * 1024 * 1024 });
    await writeFile(join(root, 'alice/big.md'), '# Notes\n');
    await truncate(join(root, 'alice/big.md'), 5 * 1024 * 1024 + 21);
    const report = await syncIndex(deps);
    expect(report.errors).toEqual([{ path: 'alice/big.md', line: 1, message: 'file is 5,242,901 bytes, over the 5,242,880-byte (5.0 MB) limit: skipped' }]);
  });

  it('skips a 20 MB file without reading it, on line 1, and indexes the rest', async () => {
    const { root, deps, index, files } = await setup(GOOD, { maxFileBytes: 5 * 1024 * 1024 });
    await writeFile(join(root, 'alice/huge.md'), '# Log\n');
    await truncate(join(root, 'alice/huge.md'), 20 * 1024 * 1024);
    const before = await snapshot(root);
    const report = await syncIndex(deps);
    expect(report.errors).toEqual([{ path: 'alice/huge.md', line: 1, message: 'file is 20.0 MB, over the 5.0 MB limit: skipped' }]);
    expect(files.reads).not.toContain('alice/huge.md');
    expect((await index.listPaths()).sort()).toEqual(Object.keys(GOOD).sort());
    expect(await snapshot(root)).toEqual(before);
  });

  it('accepts an empty file and one with empty front matter: no rows, no error', async () => {
    const { deps, index } = await setup({ ...GOOD, 'a/empty.md': '', 'a/fm-only.md': '---\n---\n', 'a/blank.md': '\n\n  \n' });
    const report = await syncIndex(deps);
    expect(report.errors).toEqual([]);
    expect(report.files).toBe(5);
    expect((await index.listPaths()).sort()).toEqual(Object.keys(GOOD).sort());
    expect([...(await deps.manifest.load())!.keys()]).toContain('a/empty.md');
  });

  it('indexes a one-megabyte single line in bounded chunks, all on line 1', async () => {
    const line = 'lorem ipsum dolor sit amet '.repeat(40_000);
    const { deps, index } = await setup({ ...GOOD, 'a/line.md': line }, { chunking: { maxChars: 1500 }, maxFileBytes: 5 * 1024 * 1024, embedBatchSize: 256 });
    const report = await syncIndex(deps);
    expect(report.errors).toEqual([]);
    const rows = index.rowsOf('a/line.md');
    expect(rows.length).toBeGreaterThan(700);
    expect(rows.every((r) => r.lineStart === 1 && r.lineEnd === 1 && r.content.length <= 1500)).toBe(true);
  });

  it('indexes deeply nested headings, lists and quotes', async () => {
    const headings = Array.from({ length: 600 }, (_, i) => `${'#'.repeat(1 + (i % 6))} Level ${i}\n\nText under heading ${i}.`).join('\n\n');
    const list = Array.from({ length: 1500 }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n');
    const quotes = `${'>'.repeat(50_000)} very deep quote`;
    const { deps, index } = await setup(
      { 'a/headings.md': headings, 'a/list.md': list, 'a/quotes.md': quotes },
      {
        chunking: { maxChars: 1500 },
        maxFileBytes: 5 * 1024 * 1024,
        embedBatchSize: 256,
      },
    );
    const report = await syncIndex(deps);
    expect(report.errors).toEqual([]);
    expect(index.rowsOf('a/headings.md')).toHaveLength(600);
    expect(index.rowsOf('a/headings.md')[5]!.heading).toBe('Level 0 > Level 1 > Level 2 > Level 3 > Level 4 > Level 5');
    expect(
      index
        .rowsOf('a/list.md')
        .map((r) => r.content)
        .join(' '),
    ).toContain('item 1499');
    expect(index.rowsOf('a/quotes.md').at(-1)!.content).toContain('very deep quote');
  });

  it('reports symbolic link loops, broken links and links out of the root by path, and indexes the rest', async () => {
    const { root, deps, index } = await setup(GOOD);
    const outside = await setup({ 'secret.md': 'Outside the root.\n' });
    await symlink('loop-b.md', join(root, 'loop-a.md'));
    await symlink('loop-a.md', join(root, 'loop-b.md'));
    await symlink('self.md', join(root, 'self.md'));
    await symlink('missing.md', join(root, 'broken.md'));
    await symlink(join(outside.root, 'secret.md'), join(root, 'escape.md'));
    await symlink('.', join(root, 'dir-loop'));
    await symlink('alice/semantic/tea.md', join(root, 'tea-link.md')); // to another memory file: skipped
    await writeFile(join(root, 'notes.txt'), 'Plain notes, not a memory file.\n');
    await symlink('notes.txt', join(root, 'notes-link.md')); // to a file the scan does not index itself: indexed
    const before = await snapshot(root);

    const report = await syncIndex(deps);
    const byPath = Object.fromEntries(report.errors.map((e) => [e.path, e.message]));
    expect(byPath).toEqual({
      'broken.md': 'broken symbolic link (ENOENT): skipped',
      'escape.md': 'symbolic link to a file outside the memory root: skipped',
      'loop-a.md': 'symbolic link loop: skipped',
      'loop-b.md': 'symbolic link loop: skipped',
      'self.md': 'symbolic link loop: skipped',
      'tea-link.md': 'symbolic link to alice/semantic/tea.md, a memory file indexed under its own path: skipped (one memory, one file)',
    });
    expect((await index.listPaths()).sort()).toEqual([...Object.keys(GOOD), 'notes-link.md'].sort());
    expect(await snapshot(root)).toEqual(before);
  });

  it("an editor's lock file (Emacs .#x.md, a dangling symlink) is no memory: not indexed, no error", async () => {
    const { root, deps, index } = await setup(GOOD);
    await symlink('root@host.1234:1700000000', join(root, 'alice/semantic/.#tea.md'));
    const report = await syncIndex(deps);
    expect(report.errors).toEqual([]);
    expect((await index.listPaths()).sort()).toEqual(Object.keys(GOOD).sort());
    expect((await deps.files.scan()).files.map((f) => f.path).sort()).toEqual(Object.keys(GOOD).sort());
  });

  it('a symlink to another memory of the same user is one problem, not a duplicate id of both files', async () => {
    const { root, deps, index } = await setup({ 'alice/semantic/tea.md': '---\nid: tea\n---\nAlice likes green tea.\n' });
    await symlink('tea.md', join(root, 'alice/semantic/tea-again.md'));
    for (let i = 0; i < 2; i++) {
      const report = await syncIndex(deps);
      expect(report.errors).toEqual([
        {
          path: 'alice/semantic/tea-again.md',
          line: 0,
          message: 'symbolic link to alice/semantic/tea.md, a memory file indexed under its own path: skipped (one memory, one file)',
        },
      ]);
    }
    expect(await index.listPaths()).toEqual(['alice/semantic/tea.md']);
  });

  it('a sync of named paths (mem watch, after an edit) skips the symlinks a full scan skips', async () => {
    const { root, deps, index } = await setup(GOOD);
    const outside = await setup({ 'secret.md': 'Outside the root, never to be indexed.\n' });
    await syncIndex(deps);
    await symlink(join(outside.root, 'secret.md'), join(root, 'escape.md'));
    await symlink('alice/semantic/tea.md', join(root, 'tea-link.md'));
    await syncIndex(deps, { only: ['escape.md', 'tea-link.md'] });
    expect((await index.listPaths()).sort()).toEqual(Object.keys(GOOD).sort());
    expect([...index.rows.values()].map((r) => r.content).join(' ')).not.toContain('Outside the root');
  });

  it('a file changed between the scan and the read, or after the read, converges on the next sync', async () => {
    const { root, deps, index } = await setup(GOOD);
    await syncIndex(deps);
    await edit(root, 'alice/semantic/tea.md', 'Version two, seen by the scan.\n');
    await edit(root, 'bob/semantic/bike.md', 'Bike version two, read by the sync.\n');
    class ChangingFiles extends FsMemoryFiles {
      override async read(path: string): Promise<Uint8Array> {
        // tea.md changes after the scan and before its read; bike.md right after its read.
        if (path === 'alice/semantic/tea.md') await edit(root, path, 'Version three, written while the sync ran.\n');
        const bytes = await super.read(path);
        if (path === 'bob/semantic/bike.md') await edit(root, path, 'Bike version three, written after the read.\n');
        return bytes;
      }
    }
    const during = await syncIndex({ ...deps, files: new ChangingFiles(root) });
    expect(during.errors).toEqual([]);
    expect(index.rowsOf('alice/semantic/tea.md').map((r) => r.content)).toEqual(['Version three, written while the sync ran.']);
    expect(index.rowsOf('bob/semantic/bike.md').map((r) => r.content)).toEqual(['Bike version two, read by the sync.']);

    const next = await syncIndex(deps);
    expect(next.errors).toEqual([]);
    expect(index.rowsOf('alice/semantic/tea.md').map((r) => r.content)).toEqual(['Version three, written while the sync ran.']);
    expect(index.rowsOf('bob/semantic/bike.md').map((r) => r.content)).toEqual(['Bike version three, written after the read.']);
    expect(await syncIndex(deps)).toMatchObject({ upserted: 0, embedded: 0, skipped: 2 });
  });
});
