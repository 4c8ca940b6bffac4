// `mem watch` as a real process on a real root (Milvus Lite, local model): create, edit, atomic save,
// rename and delete all end in the right index state, other `mem` commands run beside it, SIGINT stops it.
import type { ChildProcess } from 'node:child_process';
import { rename, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config.js';
import { openMemory } from '../../src/open-memory.js';
import type { Memory } from '../../src/services/facade.js';
import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { eventually } from '../support/eventually.js';
import { cleanEnv, runMem } from '../support/harness.js';
import { spawnWatch, type WatchProcess } from '../support/watch-process.js';

describe('mem watch', () => {
  let root: string;
  let watch: WatchProcess;
  let watcher: ChildProcess;
  let memory: Memory;
  let lines: Record<string, unknown>[] = [];

  /** Paths and contents of Ann's memories a search returns (untracked: access statistics stay untouched). */
  const found = async (query: string) => (await memory.search({ query, user: 'ann', k: 10, track: false })).map((r) => ({ path: r.path, content: r.content }));

  beforeAll(async () => {
    root = await e2eRoot({ 'ann/semantic/tea.md': 'Ann drinks green tea every morning.\n' }, 'memdir-e2e-watch-');
    watch = spawnWatch(root, ['--debounce', '50']);
    ({ watcher, lines } = watch);
    await eventually(async () => lines.some((l) => l.initial === true), 'the initial sync', 240_000, 250);
    memory = await openMemory(loadConfig(cleanEnv(), { root }));
  });

  afterAll(async () => {
    if (watcher.exitCode === null) watcher.kill('SIGKILL');
    await memory?.close();
    await disposeE2eRoot(root);
  });

  it('indexed the existing files in its first sync', async () => {
    expect(lines[0]).toMatchObject({ event: 'sync', initial: true, paths: 'all', files: 1, errors: [] });
    expect(watch.stderr()).toContain(`watching ${root}`);
    expect((await found('what does Ann drink in the morning'))[0]?.path).toBe('ann/semantic/tea.md');
  });

  it('a new file becomes searchable, an edit replaces its text', async () => {
    const bike = join(root, 'ann/semantic/bike.md');
    await writeFile(bike, 'Ann rides a red bicycle to the office.\n');
    await eventually(async () => (await found('red bicycle')).some((r) => r.path === 'ann/semantic/bike.md'), 'the new file');
    await writeFile(bike, 'Ann rides an electric scooter to the office.\n');
    const after = await eventually(async () => {
      const hits = (await found('how does Ann get to the office')).filter((r) => r.path === 'ann/semantic/bike.md');
      return hits.length === 1 && hits[0]!.content.includes('scooter') ? hits : undefined;
    }, 'the edit');
    expect(after[0]!.content).not.toContain('bicycle');
  });

  it("an editor's atomic save (temp file renamed over the original) ends with the new text", async () => {
    await writeFile(join(root, 'ann/semantic/.bike.md.tmp-777'), 'Ann walks to the office along the river.\n');
    await rename(join(root, 'ann/semantic/.bike.md.tmp-777'), join(root, 'ann/semantic/bike.md'));
    await eventually(async () => {
      const hits = (await found('how does Ann get to the office')).filter((r) => r.path === 'ann/semantic/bike.md');
      return hits.length === 1 && hits[0]!.content.includes('river');
    }, 'the atomic save');
  });

  it('a rename moves the memory to its new path; a delete removes it', async () => {
    await rename(join(root, 'ann/semantic/bike.md'), join(root, 'ann/semantic/commute.md'));
    await eventually(async () => {
      const paths = (await found('Ann walks to the office along the river')).map((r) => r.path);
      return paths.includes('ann/semantic/commute.md') && !paths.includes('ann/semantic/bike.md');
    }, 'the rename');
    await unlink(join(root, 'ann/semantic/commute.md'));
    await eventually(async () => !(await found('Ann walks to the office along the river')).some((r) => r.path.endsWith('commute.md')), 'the delete');
  });

  it('a hand-written correction takes effect at its next sync, and removing it brings the old memory back', async () => {
    const tea = 'ann/semantic/tea.md';
    await writeFile(join(root, 'ann/semantic/coffee.md'), '---\nsupersedes: ann/semantic/tea\n---\nAnn switched to black coffee every morning.\n');
    await eventually(async () => {
      const paths = (await found('what does Ann drink in the morning')).map((r) => r.path);
      return paths.includes('ann/semantic/coffee.md') && !paths.includes(tea);
    }, 'the correction');
    // The tea file was not touched; its rows were rewritten with cached vectors, nothing re-embedded for it.
    const syncs = lines.filter((l) => Array.isArray(l.paths) && (l.paths as string[]).includes('ann/semantic/coffee.md'));
    const sum = (key: string) => syncs.reduce((n, l) => n + (l[key] as number), 0);
    expect([sum('embedded'), sum('upserted'), syncs.flatMap((l) => l.errors as unknown[])]).toEqual([1, 2, []]);
    await unlink(join(root, 'ann/semantic/coffee.md'));
    await eventually(async () => (await found('what does Ann drink in the morning'))[0]?.path === tea, 'the undo');
  });

  it('other mem commands run beside it (no lock errors) and the index ends in sync', async () => {
    const [add, search] = await Promise.all([
      runMem(['add', 'Ann is allergic to peanuts', '--user', 'ann', '--json'], { root }),
      runMem(['search', 'green tea', '--user', 'ann', '--json'], { root }),
    ]);
    expect(add.code).toBe(0);
    expect(search.code).toBe(0);
    expect(search.json.results[0].path).toBe('ann/semantic/tea.md');
    await eventually(async () => (await found('peanut allergy'))[0]?.path === add.json.path, 'the added memory');
    const status = await eventually(async () => {
      const s = await runMem(['status', '--json'], { root });
      return s.json?.drift?.inSync ? s.json : undefined;
    }, 'status in sync');
    expect(status).toMatchObject({ files: 2, chunks: 2, indexRows: 2 });
    expect(lines.filter((l) => l.event === 'error')).toEqual([]);
  });

  it('stops cleanly on SIGINT with exit code 0', async () => {
    const exited = new Promise<number | null>((resolve) => watcher.once('exit', (code) => resolve(code)));
    watcher.kill('SIGINT');
    expect(await exited).toBe(0);
    // Syncs, and any purge of text edited or deleted away once edits paused (5 s: timing decides whether one
    // ran before the stop; test/e2e/forgetting.test.ts waits for it); no error.
    expect(lines.every((l) => l.event === 'sync' || l.event === 'purge')).toBe(true);
  });
});

describe("mem watch when the root's .mem/ is deleted under it (git clean -fdx)", () => {
  let root: string;
  let watch: WatchProcess;

  beforeAll(async () => {
    root = await e2eRoot({ 'ann/semantic/tea.md': 'Ann drinks green tea every morning.\n' }, 'memdir-e2e-watch-clean-');
    watch = spawnWatch(root, ['--debounce', '50']);
    await eventually(async () => watch.lines.some((l) => l.initial === true), 'the initial sync', 240_000, 250);
  });

  afterAll(async () => {
    if (watch.watcher.exitCode === null) watch.watcher.kill('SIGKILL');
    await disposeE2eRoot(root);
  });

  it('stops with exit 1 at the next change, naming the root id file, and syncs nothing into the index nobody reads', async () => {
    const exited = new Promise<number | null>((resolve) => watch.watcher.once('exit', (code) => resolve(code)));
    await rm(join(root, '.mem'), { recursive: true, force: true });
    await writeFile(join(root, 'ann/semantic/tea.md'), 'Ann drinks black tea every morning.\n');
    expect(await exited).toBe(1);
    const errors = watch.lines.filter((l) => l.event === 'error');
    expect(errors).toHaveLength(1);
    expect(JSON.stringify(errors[0])).toContain('root-id was deleted or replaced since this watch started');
    expect(watch.lines.filter((l) => l.event === 'sync' && l.initial !== true)).toEqual([]);
    // The command's own error (JSON on stdout with --json) says it stopped.
    expect(JSON.stringify(watch.lines) + watch.stderr()).toContain('stopped watching');
  });
});
