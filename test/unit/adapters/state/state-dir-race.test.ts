// A root deleted at the very moment memdir makes a folder in it (after every check it could make): the folder
// making itself is what finds the root gone, so the root does not come back. The deletion is staged inside `mkdir`.
import { existsSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it, vi } from 'vitest';

// The root to delete on the next mkdir (promise or sync) of a folder inside it, before that mkdir runs.
const staged = vi.hoisted(() => ({ root: '' }));
const deleteIfStaged = (path: unknown) => {
  if (staged.root && String(path).startsWith(staged.root)) {
    rmSync(staged.root, { recursive: true, force: true });
    staged.root = '';
  }
};
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const mkdir = (async (path: string, options?: unknown) => {
    deleteIfStaged(path);
    return actual.mkdir(path, options as never);
  }) as typeof actual.mkdir;
  return { ...actual, mkdir, default: { ...actual, mkdir } };
});
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const mkdirSync = ((path: string, options?: unknown) => {
    deleteIfStaged(path);
    return actual.mkdirSync(path, options as never);
  }) as typeof actual.mkdirSync;
  return { ...actual, mkdirSync, default: { ...actual, mkdirSync } };
});

const { ensureStateDir, makeStateFolder, makeStateFolderSync } = await import('../../../../src/adapters/state/state-dir.js');
const { FsMemoryFiles } = await import('../../../../src/adapters/files/fs-memory-files.js');
const { RootGoneError } = await import('../../../../src/errors.js');

describe('a root deleted as a folder is made in it', () => {
  let base = '';
  afterEach(async () => {
    staged.root = '';
    if (base) await rm(base, { recursive: true, force: true });
  });

  async function existingRoot(): Promise<string> {
    base = await mkdtemp(join(tmpdir(), 'memdir-state-race-'));
    const root = join(base, 'root');
    await ensureStateDir(join(root, '.mem'), { createRoot: true });
    return root;
  }

  it('stays deleted when it goes as its state folder is made', async () => {
    const root = await existingRoot();
    await rm(join(root, '.mem'), { recursive: true });
    staged.root = root;
    await expect(ensureStateDir(join(root, '.mem'))).rejects.toBeInstanceOf(RootGoneError);
    expect(existsSync(root)).toBe(false);
  });

  it('stays deleted when it goes as a folder of its state is made, sync or not', async () => {
    const root = await existingRoot();
    staged.root = root;
    await expect(makeStateFolder(join(root, '.mem', 'vectors'))).rejects.toBeInstanceOf(RootGoneError);
    expect(existsSync(root)).toBe(false);

    const again = await existingRoot();
    staged.root = again;
    expect(() => makeStateFolderSync(join(again, '.mem', 'chunks'))).toThrow(RootGoneError);
    expect(existsSync(again)).toBe(false);
  });

  it('stays deleted when it goes as a memory file is written into a new folder', async () => {
    const root = await existingRoot();
    const files = new FsMemoryFiles(root);
    staged.root = root;
    await expect(files.write('ann/semantic/tea.md', 'Ann drinks green tea.\n')).rejects.toBeInstanceOf(RootGoneError);
    expect(existsSync(root)).toBe(false);
  });
});
