// Covers FsMemoryFiles' stat and read of one memory path: a file's size, time and bytes; null for what is no file
// the scan indexes (missing, a folder, a skipped symlink); a missing file's read fails with its code; and a path
// leaving the root is refused, whichever way the adapter reaches the disk; a write never makes a deleted root again.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { FsMemoryFiles } from '../../../../src/adapters/files/fs-memory-files.js';
import { RootGoneError, UsageError } from '../../../../src/errors.js';
import { tempRoot } from '../../../support/temp-root.js';

const TEXT = 'Alice drinks green tea every morning. 绿茶\n';

async function root() {
  // The memory root is a folder of the temp folder, so that a file beside it is outside it.
  const top = await tempRoot({ 'mem/alice/semantic/tea.md': TEXT, 'outside.md': 'not a memory of this root\n' });
  const dir = join(top, 'mem');
  await mkdir(join(dir, 'alice', 'semantic', 'folder.md'));
  await symlink(join(top, 'outside.md'), join(dir, 'alice', 'semantic', 'out.md'));
  await symlink('tea.md', join(dir, 'alice', 'semantic', 'twin.md'));
  return { dir, files: new FsMemoryFiles(dir) };
}

describe('FsMemoryFiles stat and read', () => {
  it('gives a file its size, whole-ms time and bytes', async () => {
    const { dir, files } = await root();
    const st = await stat(join(dir, 'alice/semantic/tea.md'));
    expect(await files.stat('alice/semantic/tea.md')).toEqual({ path: 'alice/semantic/tea.md', size: st.size, mtimeMs: Math.floor(st.mtimeMs) });
    expect(Buffer.from(await files.read('alice/semantic/tea.md')).toString('utf8')).toBe(TEXT);
  });

  it('answers null for a missing path, a folder and a symlink the scan skips', async () => {
    const { files } = await root();
    expect(await files.stat('alice/semantic/gone.md')).toBeNull();
    expect(await files.stat('alice/semantic/folder.md')).toBeNull();
    expect(await files.stat('alice/semantic/out.md')).toBeNull();
    expect(await files.stat('alice/semantic/twin.md')).toBeNull();
  });

  it('fails a missing file’s read with ENOENT, as a rejected promise', async () => {
    const { files } = await root();
    const reading = files.read('alice/semantic/gone.md');
    expect(reading).toBeInstanceOf(Promise);
    await expect(reading).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a path that leaves the root', async () => {
    const { files } = await root();
    await expect(files.stat('../outside.md')).rejects.toBeInstanceOf(UsageError);
    await expect(files.read('../outside.md')).rejects.toBeInstanceOf(UsageError);
  });

  it('writes into new folders of the root, but never makes a deleted root again', async () => {
    const { dir, files } = await root();
    await files.write('bob/episodic/2026/walk.md', TEXT);
    expect(await readFile(join(dir, 'bob', 'episodic', '2026', 'walk.md'), 'utf8')).toBe(TEXT);
    await rm(dir, { recursive: true });
    await expect(files.write('bob/episodic/2026/run.md', TEXT)).rejects.toBeInstanceOf(RootGoneError);
    expect(existsSync(dir)).toBe(false);
  });
});
