// A root's state folder is made at the root's opening only: a state write (manifest, journal, lock, vectors) into a
// root deleted since finds it gone instead of making it again as a folder holding only `.mem/`.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { FileLock } from '../../../../src/adapters/state/file-lock.js';
import { JsonWriteJournal } from '../../../../src/adapters/state/json-write-journal.js';
import { openLmdb } from '../../../../src/adapters/state/lmdb-open.js';
import { ensureStateDir, makeBelow, makeStateFolder, tightenExistingDir } from '../../../../src/adapters/state/state-dir.js';
import { RootGoneError } from '../../../../src/errors.js';

describe('state folders of a root', () => {
  let base = '';
  afterEach(async () => {
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('are made for an existing root, and with the root at its opening (createRoot)', async () => {
    base = await mkdtemp(join(tmpdir(), 'memdir-state-dir-'));
    await ensureStateDir(join(base, 'kept', '.mem'), { createRoot: true });
    expect(existsSync(join(base, 'kept', '.mem', '.gitignore'))).toBe(true);
    await makeStateFolder(join(base, 'kept', '.mem', 'vectors'));
    expect(existsSync(join(base, 'kept', '.mem', 'vectors'))).toBe(true);
  });

  it('never make a deleted root again: a write into it fails with RootGoneError and leaves no folder', async () => {
    base = await mkdtemp(join(tmpdir(), 'memdir-state-dir-'));
    const root = join(base, 'gone');
    await ensureStateDir(join(root, '.mem'), { createRoot: true });
    await rm(root, { recursive: true });
    await expect(ensureStateDir(join(root, '.mem'))).rejects.toBeInstanceOf(RootGoneError);
    await expect(new FileLock(join(root, '.mem')).run(async () => 'ran')).rejects.toBeInstanceOf(RootGoneError);
    await expect(new JsonWriteJournal(join(root, '.mem')).begin({ op: 'ADD', paths: ['a.md'], at: '2026-01-01' } as never)).rejects.toBeInstanceOf(
      RootGoneError,
    );
    expect(existsSync(root)).toBe(false);
  });

  it('are made one level at a time below the root, so a root gone at the very moment of the write fails instead of coming back', async () => {
    base = await mkdtemp(join(tmpdir(), 'memdir-state-dir-'));
    const root = join(base, 'gone');
    // No check before the write to slip between: each level is made alone, and the first one needs the root.
    await expect(makeBelow(root, join(root, '.mem', 'vectors'), 0o700)).rejects.toBeInstanceOf(RootGoneError);
    await expect(makeStateFolder(join(root, '.mem', 'vectors'))).rejects.toBeInstanceOf(RootGoneError);
    // The root itself is never one of the folders made: asked for, nothing is made.
    await makeBelow(root, root);
    // LMDB makes a missing folder of its file recursively: opened through openLmdb it never gets to.
    await expect(openLmdb({ path: join(root, '.mem', 'chunks.mdb'), noSubdir: true })).rejects.toBeInstanceOf(RootGoneError);
    // A personal root is tightened at its opening, never made when it must exist.
    await expect(tightenExistingDir(root)).rejects.toBeInstanceOf(RootGoneError);
    expect(existsSync(root)).toBe(false);
  });

  it('a folder outside the root is refused rather than made', async () => {
    base = await mkdtemp(join(tmpdir(), 'memdir-state-dir-'));
    await expect(makeBelow(join(base, 'root'), join(base, 'elsewhere'))).rejects.toThrow(/not inside/);
    expect(existsSync(join(base, 'elsewhere'))).toBe(false);
  });

  it('kept under the runtime home (a read-only root) are made as before', async () => {
    base = await mkdtemp(join(tmpdir(), 'memdir-state-dir-'));
    await makeStateFolder(join(base, 'home', 'roots', '0123456789abcdef'));
    expect(existsSync(join(base, 'home', 'roots', '0123456789abcdef'))).toBe(true);
  });
});
