// Covers the chokidar watcher on a real folder: Markdown files created, changed, removed, renamed and
// saved atomically are reported; .git/, .mem/ and non-Markdown files are not.
import { mkdir, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { ignoredPath, watchRoot } from '../../../../src/adapters/watcher/chokidar-watcher.js';
import type { FileChange, FileWatcher } from '../../../../src/services/ports.js';
import { tempRoot } from '../../../support/temp-root.js';

const open: { root: string; watcher: FileWatcher }[] = [];
afterEach(async () => {
  for (const { root, watcher } of open.splice(0)) {
    await watcher.close();
    await rm(root, { recursive: true, force: true });
  }
});

async function start(tree: Record<string, string> = {}) {
  const root = await tempRoot(tree);
  const changes: FileChange[] = [];
  const watcher = await watchRoot(root, (c) => changes.push(c));
  open.push({ root, watcher });
  const paths = () => new Set(changes.flatMap((c) => (c.kind === 'file' ? [c.path] : [])));
  const seen = async (path: string) => {
    const deadline = Date.now() + 5_000;
    while (!paths().has(path)) {
      if (Date.now() > deadline) throw new Error(`no event for ${path}; got ${JSON.stringify(changes)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { root, changes, paths, seen, reset: () => void changes.splice(0) };
}

describe('chokidar watcher', () => {
  it('reports create, change, delete and rename of Markdown files with root-relative paths', async () => {
    const w = await start({ 'ann/semantic/a.md': 'one\n' });
    await mkdir(join(w.root, 'ann/episodic'), { recursive: true });
    await writeFile(join(w.root, 'ann/episodic/new.md'), 'new\n');
    await w.seen('ann/episodic/new.md');
    await writeFile(join(w.root, 'ann/semantic/a.md'), 'two\n');
    await w.seen('ann/semantic/a.md');
    w.reset();
    await unlink(join(w.root, 'ann/semantic/a.md'));
    await w.seen('ann/semantic/a.md');
    w.reset();
    await rename(join(w.root, 'ann/episodic/new.md'), join(w.root, 'ann/episodic/renamed.md'));
    await w.seen('ann/episodic/renamed.md');
    await w.seen('ann/episodic/new.md');
  });

  it('an atomic save (temp file, then rename over the original) reports the Markdown file only', async () => {
    const w = await start({ 'notes.md': 'draft\n' });
    await writeFile(join(w.root, 'notes.md.tmp-1234'), 'final\n');
    await rename(join(w.root, 'notes.md.tmp-1234'), join(w.root, 'notes.md'));
    await w.seen('notes.md');
    expect([...w.paths()]).toEqual(['notes.md']);
  });

  it('ignores .git/, .mem/ and files that are not Markdown', async () => {
    const w = await start({ '.git/HEAD': 'ref\n', '.mem/manifest.json': '{}' });
    await writeFile(join(w.root, '.git/x.md'), 'x\n');
    await writeFile(join(w.root, '.mem/y.md'), 'y\n');
    await writeFile(join(w.root, 'picture.png'), 'png');
    await writeFile(join(w.root, '.notes.md.swp'), 'swap');
    await writeFile(join(w.root, 'marker.md'), 'last\n');
    await w.seen('marker.md');
    expect([...w.paths()]).toEqual(['marker.md']);
  });

  it('ignoredPath: folders stay watched, skipped folders and non-Markdown files do not', () => {
    expect(ignoredPath('/r', '/r/ann/semantic', false)).toBe(false);
    expect(ignoredPath('/r', '/r/ann/semantic', undefined)).toBe(false);
    expect(ignoredPath('/r', '/r/.git/objects', false)).toBe(true);
    expect(ignoredPath('/r', 'node_modules/a.md', true)).toBe(true);
    expect(ignoredPath('/r', '/r/a.MD', true)).toBe(false);
    expect(ignoredPath('/r', '/r/a.md~', true)).toBe(true);
    // Emacs' lock file (a dangling symlink while a buffer has unsaved changes) ends in .md but is no memory.
    expect(ignoredPath('/r', '/r/ann/.#a.md', true)).toBe(true);
    expect(ignoredPath('/r', '/r/ann/.#a.md', undefined)).toBe(true);
  });
});
