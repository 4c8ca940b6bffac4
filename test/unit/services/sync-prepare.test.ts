// Covers the sync's early hint to the index (SyncDeps.prepareIndex) and its bounded flush after a small write.
import { unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { syncIndex } from '../../../src/services/core/sync.js';
import { setup, type Setup } from '../../support/sync-fixture.js';

const TREE = {
  'alice/semantic/tea.md': 'Alice likes green tea in the morning, every day.\n\nShe is allergic to peanuts and also to shellfish.\n',
  'bob/episodic/trip.md': '# Trip to Porto\n\nWe took the train on Monday morning, early.\n',
};

/** A setup whose prepareIndex and manifest load are recorded in the order they happen. */
async function recorded(): Promise<Setup & { events: string[] }> {
  const events: string[] = [];
  const s = await setup(TREE, { prepareIndex: () => void events.push('prepare') });
  const load = s.deps.manifest.load.bind(s.deps.manifest);
  s.deps.manifest.load = async () => {
    events.push('load');
    return load();
  };
  return { ...s, events };
}

/** Rewrites a file now, with an mtime of now: after the manifest's last save, not in the future. */
async function editNow(root: string, path: string, text: string): Promise<void> {
  const { writeFile } = await import('node:fs/promises');
  await writeFile(join(root, path), text);
  const now = new Date();
  await utimes(join(root, path), now, now);
}

describe('syncIndex: preparing the index', () => {
  it('a no-op never prepares the index', async () => {
    const { deps, events } = await recorded();
    await syncIndex(deps);
    events.length = 0;
    const report = await syncIndex(deps);
    expect(report.skipped).toBe(2);
    expect(events).toEqual(['load']);
  });

  it('a file modified since the last save prepares it once, before the manifest is read', async () => {
    const { root, deps, events, index } = await recorded();
    await syncIndex(deps);
    events.length = 0;
    await new Promise((resolve) => setTimeout(resolve, 20));
    await editNow(root, 'alice/semantic/tea.md', 'Alice likes green tea in the morning, every day.\n\nShe now drinks it cold.\n');
    const report = await syncIndex(deps);
    expect(report.errors).toEqual([]);
    expect(report.embedded).toBeGreaterThan(0);
    expect(events).toEqual(['prepare', 'load']);
    expect(index.rowsOf('alice/semantic/tea.md').some((r) => r.content.includes('She now drinks it cold.'))).toBe(true);
  });

  it('a deleted file, or one dated before the last save, prepares it once the manifest is read', async () => {
    const { root, deps, events, index } = await recorded();
    await syncIndex(deps);
    events.length = 0;
    await unlink(join(root, 'bob/episodic/trip.md'));
    const report = await syncIndex(deps);
    expect(report.deleted).toBe(1);
    expect(events).toEqual(['load', 'prepare']);
    expect(index.rowsOf('bob/episodic/trip.md')).toEqual([]);

    events.length = 0;
    await editNow(root, 'alice/semantic/tea.md', 'Alice likes black tea now.\n');
    await utimes(join(root, 'alice/semantic/tea.md'), 1_000_000, 1_000_000); // older than any save
    await syncIndex(deps);
    expect(events).toEqual(['load', 'prepare']);
  });

  it("a sync that will read a file loads the vector cache's store before its progress starts; a no-op does not", async () => {
    const { root, deps, events } = await recorded();
    const preload = deps.cache.preload!.bind(deps.cache);
    deps.cache.preload = async () => {
      events.push('preload');
      await preload();
    };
    const progress = { start: () => void events.push('start'), tick() {}, stop() {} };
    await syncIndex(deps);
    events.length = 0;
    await syncIndex(deps, { progress });
    expect(events).toEqual(['load', 'start']);

    events.length = 0;
    await new Promise((resolve) => setTimeout(resolve, 20));
    await editNow(root, 'alice/semantic/tea.md', 'Alice likes black tea now.\n');
    const report = await syncIndex(deps, { progress });
    expect(report.embedded).toBe(1);
    // Loaded first by the edit's embedding ahead of the manifest (embed-ahead.ts), asked again (a no-op then) before the start.
    expect(events).toEqual(['prepare', 'preload', 'load', 'preload', 'start']);
  });

  it('a file dated in the future is no hint before the manifest is read', async () => {
    const { root, deps, events } = await recorded();
    await syncIndex(deps);
    events.length = 0;
    const later = Date.now() / 1000 + 3_600;
    await editNow(root, 'alice/semantic/tea.md', 'Alice likes black tea now.\n');
    await utimes(join(root, 'alice/semantic/tea.md'), later, later);
    await syncIndex(deps);
    expect(events).toEqual(['load', 'prepare']);
  });
});

describe('syncIndex: the flush after a write', () => {
  it('a small write sends its flush and does not wait for it past a moment; the rows are written', async () => {
    const { root, deps, index } = await setup(TREE);
    await syncIndex(deps);
    let flushes = 0;
    index.flush = () => (flushes++, new Promise<void>(() => undefined)); // a server busy compacting: never answers
    await editNow(root, 'bob/episodic/trip.md', '# Trip to Porto\n\nWe took the night train instead.\n');
    const report = await syncIndex(deps);
    expect(report).toMatchObject({ embedded: 1, upserted: 1, errors: [] });
    expect(flushes).toBe(1);
    expect(index.rowsOf('bob/episodic/trip.md').map((r) => r.content)).toEqual(['# Trip to Porto\n\nWe took the night train instead.']);
  });

  it('a small write is not failed by its flush', async () => {
    const { root, deps, index } = await setup(TREE);
    await syncIndex(deps);
    index.flush = () => Promise.reject(new Error('flush refused'));
    await editNow(root, 'bob/episodic/trip.md', '# Trip to Porto\n\nWe flew back.\n');
    await expect(syncIndex(deps)).resolves.toMatchObject({ upserted: 1, errors: [] });
  });

  it('a rebuild waits for its flush', async () => {
    const { deps, index } = await setup(TREE);
    await syncIndex(deps);
    let release!: () => void;
    index.flush = () => new Promise<void>((resolve) => (release = resolve));
    let done = false;
    const rebuilt = syncIndex(deps, { rebuild: true }).then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 600)); // past the small write's wait
    expect(done).toBe(false);
    release();
    await rebuilt;
    expect(done).toBe(true);
  });
});
