// Covers the private state folder: made owner-only, an open one closed, a deleted one made again, the root's own mode untouched.
import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { ensureStateDir } from '../../../../src/adapters/state/state-dir.js';

const modeOf = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

describe('ensureStateDir', () => {
  let base: string;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'memdir-state-dir-'));
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('makes .mem/ 0700 with a 0600 .gitignore, and leaves the root above it as the umask makes it', async () => {
    const root = join(base, 'memories');
    const dir = await ensureStateDir(join(root, '.mem'), { createRoot: true });
    expect(await modeOf(dir)).toBe('700');
    expect(await modeOf(join(dir, '.gitignore'))).toBe('600');
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toBe('*\n');
    expect(await modeOf(root)).toBe((0o777 & ~process.umask()).toString(8));
  });

  it('closes a .mem/ that others could read, and makes one deleted since again', async () => {
    const dir = join(base, 'root', '.mem');
    await ensureStateDir(dir, { createRoot: true });
    await rm(dir, { recursive: true });
    await ensureStateDir(dir);
    expect(await modeOf(dir)).toBe('700');
    const other = join(base, 'older', '.mem');
    await ensureStateDir(other, { createRoot: true });
    await chmod(other, 0o755);
    await rm(join(other, '.gitignore'));
    await ensureStateDir(other);
    expect(await modeOf(other)).toBe('700');
  });
});
