// Covers watchMemory: the first full sync, debouncing a burst into one sync, deletions and renames,
// retry after a failed sync, and close() syncing what is pending. Real files and lock; fake index,
// embedder and watcher (the test plays the file events).
import { existsSync } from 'node:fs';
import { mkdtemp, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { IndexUnavailableError, RootGoneError } from '../../../src/errors.js';
import type { FileChange, IndexedChunk } from '../../../src/services/ports.js';
import { watchMemory, type WatchSyncEvent } from '../../../src/services/watch.js';
import { InMemoryIndex } from '../../support/fakes.js';
import { tempRoot } from '../../support/temp-root.js';
import { unitDeps } from '../../support/unit-deps.js';

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

/** An index whose next `failures` upserts throw as if the server were down. */
class FlakyIndex extends InMemoryIndex {
  failures = 0;
  override async upsert(rows: IndexedChunk[]): Promise<void> {
    if (this.failures > 0) {
      this.failures--;
      throw new IndexUnavailableError('index down');
    }
    return super.upsert(rows);
  }
}

async function setup(tree: Record<string, string>) {
  const root = await tempRoot(tree);
  roots.push(root);
  const index = new FlakyIndex();
  let emit: (change: FileChange) => void = () => undefined;
  let watcherClosed = false;
  const deps = unitDeps(root, {
    index,
    chunking: { maxChars: 400 },
    watchFiles: async (cb) => {
      emit = cb;
      return { close: async () => void (watcherClosed = true) };
    },
  });
  const events: WatchSyncEvent[] = [];
  const errors: unknown[] = [];
  const change = (path: string) => emit({ kind: 'file', path });
  return { root, index, deps, events, errors, change, rescan: () => emit({ kind: 'rescan', reason: 'test' }), watcherClosed: () => watcherClosed };
}

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const contents = (index: InMemoryIndex) => [...index.rows.values()].map((r) => `${r.path}: ${r.content.trim()}`).sort();

describe('watchMemory', () => {
  it('starts with a full sync that catches up with files edited while nobody watched', async () => {
    const t = await setup({ 'ann/semantic/a.md': 'Ann likes tea.\n' });
    const w = await watchMemory(t.deps, { onSync: (e) => t.events.push(e) });
    expect(t.events).toHaveLength(1);
    expect(t.events[0]).toMatchObject({ initial: true, paths: 'all', report: { files: 1, upserted: 1, errors: [] } });
    expect(contents(t.index)).toEqual(['ann/semantic/a.md: Ann likes tea.']);
    await w.close();
    expect(t.watcherClosed()).toBe(true);
  });

  it('syncs a burst of changes once, with just the changed paths', async () => {
    const t = await setup({ 'ann/semantic/a.md': 'Ann likes tea.\n' });
    const w = await watchMemory(t.deps, { debounceMs: 50, onSync: (e) => t.events.push(e) });
    await writeFile(join(t.root, 'ann/semantic/b.md'), 'Ann plays chess.\n');
    await writeFile(join(t.root, 'ann/semantic/c.md'), 'Ann owns a cat.\n');
    await writeFile(join(t.root, 'ann/semantic/a.md'), 'Ann likes green tea.\n');
    for (const p of ['ann/semantic/b.md', 'ann/semantic/c.md', 'ann/semantic/a.md', 'ann/semantic/b.md']) t.change(p);
    await until(() => t.events.length === 2);
    await new Promise((r) => setTimeout(r, 150)); // no second sync follows
    expect(t.events).toHaveLength(2);
    expect(t.events[1]).toMatchObject({ initial: false, paths: ['ann/semantic/a.md', 'ann/semantic/b.md', 'ann/semantic/c.md'] });
    expect(contents(t.index)).toEqual(['ann/semantic/a.md: Ann likes green tea.', 'ann/semantic/b.md: Ann plays chess.', 'ann/semantic/c.md: Ann owns a cat.']);
    await w.close();
  });

  it('a deleted path loses its rows; a rename (old gone, new added) moves them', async () => {
    const t = await setup({ 'ann/semantic/a.md': 'Ann likes tea.\n', 'ann/semantic/b.md': 'Ann plays chess.\n' });
    const w = await watchMemory(t.deps, { debounceMs: 20, onSync: (e) => t.events.push(e) });
    await unlink(join(t.root, 'ann/semantic/a.md'));
    t.change('ann/semantic/a.md');
    await until(() => t.events.length === 2);
    expect(contents(t.index)).toEqual(['ann/semantic/b.md: Ann plays chess.']);
    await rename(join(t.root, 'ann/semantic/b.md'), join(t.root, 'ann/semantic/hobby.md'));
    t.change('ann/semantic/b.md');
    t.change('ann/semantic/hobby.md');
    await until(() => t.events.length === 3);
    expect(t.events[2]!.report).toMatchObject({ files: 1, embedded: 0, errors: [] }); // the cached vector is reused
    expect(contents(t.index)).toEqual(['ann/semantic/hobby.md: Ann plays chess.']);
    await w.close();
  });

  it('a rescan runs a full sync', async () => {
    const t = await setup({ 'ann/semantic/a.md': 'Ann likes tea.\n' });
    const w = await watchMemory(t.deps, { debounceMs: 20, onSync: (e) => t.events.push(e) });
    await rm(join(t.root, 'ann'), { recursive: true });
    t.rescan();
    await until(() => t.events.length === 2);
    expect(t.events[1]!.paths).toBe('all');
    expect(t.index.rows.size).toBe(0);
    await w.close();
  });

  it('a failed sync is reported and retried until the change is in', async () => {
    const t = await setup({});
    const w = await watchMemory(t.deps, { debounceMs: 20, onSync: (e) => t.events.push(e), onError: (e) => t.errors.push(e) });
    t.index.failures = 1;
    await writeFile(join(t.root, 'x.md'), 'The server came back.\n');
    t.change('x.md');
    await until(() => t.errors.length === 1);
    expect(t.errors[0]).toBeInstanceOf(IndexUnavailableError);
    await until(() => t.events.length === 2, 5_000); // retried after a 1 s backoff
    expect(contents(t.index)).toEqual(['x.md: The server came back.']);
    await w.close();
  });

  it('a root deleted under it: no sync runs there (that would make the folder again), the error is reported', async () => {
    const t = await setup({ 'ann/semantic/a.md': 'Ann likes tea.\n' });
    const w = await watchMemory(t.deps, { debounceMs: 20, onSync: (e) => t.events.push(e), onError: (e) => t.errors.push(e) });
    await rm(t.root, { recursive: true });
    t.rescan();
    await until(() => t.errors.length > 0);
    expect(t.errors[0]).toBeInstanceOf(RootGoneError);
    expect((t.errors[0] as Error).message).toBe(`the memory root ${t.root} is gone (deleted or moved away)`);
    await w.close();
    expect(t.events).toHaveLength(1); // the first sync only
    expect(existsSync(t.root)).toBe(false);
  });

  it('a root moved away with no change reported: the check between syncs reports it', async () => {
    const t = await setup({ 'ann/semantic/a.md': 'Ann likes tea.\n' });
    const w = await watchMemory(t.deps, { rootCheckMs: 20, onSync: (e) => t.events.push(e), onError: (e) => t.errors.push(e) });
    await rename(t.root, `${t.root}-moved`);
    roots.push(`${t.root}-moved`);
    await until(() => t.errors.length > 0);
    expect(t.errors).toEqual([expect.any(RootGoneError)]);
    await w.close();
    expect(existsSync(t.root)).toBe(false);
  });

  it('close() still syncs a change that was waiting for its debounce', async () => {
    const t = await setup({});
    const w = await watchMemory(t.deps, { debounceMs: 10_000, onSync: (e) => t.events.push(e) });
    await writeFile(join(t.root, 'late.md'), 'Saved just before the watch stopped.\n');
    t.change('late.md');
    await w.close();
    expect(t.events.map((e) => e.paths)).toEqual(['all', ['late.md']]);
    expect(contents(t.index)).toEqual(['late.md: Saved just before the watch stopped.']);
  });

  it('reports each symlink its sync of named paths skips, once, by path and reason (as the full scan does)', async () => {
    const t = await setup({ 'ann/semantic/tea.md': 'Ann drinks green tea.\n' });
    const outside = await mkdtemp(join(tmpdir(), 'memdir-outside-'));
    roots.push(outside);
    await writeFile(join(outside, 'secret.md'), 'A file outside the memory root.\n');
    const w = await watchMemory(t.deps, { debounceMs: 10, onSync: (e) => t.events.push(e) });
    await symlink(join(t.root, 'ann/semantic/tea.md'), join(t.root, 'ann/semantic/tea-link.md'));
    await symlink(join(outside, 'secret.md'), join(t.root, 'ann/semantic/out.md'));
    t.change('ann/semantic/tea-link.md');
    t.change('ann/semantic/out.md');
    await until(() => t.events.length === 2);
    expect(t.events[1]!.report.errors).toEqual([
      { path: 'ann/semantic/out.md', line: 0, message: 'symbolic link to a file outside the memory root: skipped' },
      {
        path: 'ann/semantic/tea-link.md',
        line: 0,
        message: 'symbolic link to ann/semantic/tea.md, a memory file indexed under its own path: skipped (one memory, one file)',
      },
    ]);
    // Touched again (an editor's save through the link): said once already, not repeated; nothing indexed from either.
    t.change('ann/semantic/out.md');
    t.change('ann/semantic/tea-link.md');
    await until(() => t.events.length === 3);
    expect(t.events[2]!.report.errors).toEqual([]);
    expect(contents(t.index)).toEqual(['ann/semantic/tea.md: Ann drinks green tea.']);
    // Gone and back: said again.
    await unlink(join(t.root, 'ann/semantic/out.md'));
    t.change('ann/semantic/out.md');
    await until(() => t.events.length === 4);
    await symlink(join(outside, 'secret.md'), join(t.root, 'ann/semantic/out.md'));
    t.change('ann/semantic/out.md');
    await until(() => t.events.length === 5);
    expect(t.events[4]!.report.errors.map((e) => e.path)).toEqual(['ann/semantic/out.md']);
    await w.close();
  });

  it('without a watcher it says so', async () => {
    const t = await setup({});
    const { watchFiles: _w, ...deps } = t.deps;
    await expect(watchMemory(deps)).rejects.toThrow('without a file watcher');
  });
});
