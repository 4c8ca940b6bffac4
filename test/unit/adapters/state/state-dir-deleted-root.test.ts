// A root's state folder is made at the root's opening only: a state write (manifest, journal, lock, vectors) into a
// root deleted since finds it gone instead of making it again as a folder holding only `.mem/`.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { FileLock } from '../../../../src/adapters/state/file-lock.js';
import { JsonWriteJournal } from '../../../../src/adapters/state/json-write-journal.js';
import { ensureStateDir, makeStateFolder } from '../../../../src/adapters/state/state-dir.js';
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

  it('kept under the runtime home (a read-only root) are made as before', async () => {
    base = await mkdtemp(join(tmpdir(), 'memdir-state-dir-'));
    await makeStateFolder(join(base, 'home', 'roots', '0123456789abcdef'));
    expect(existsSync(join(base, 'home', 'roots', '0123456789abcdef'))).toBe(true);
  });
});
