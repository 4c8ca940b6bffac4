// Small writes through the search daemon, with the real `bin/mem`, Milvus Lite and model: an edit synced by
// `mem reindex` and a `mem add` go through the daemon that serves the root (its log says so) and the next command finds
// them; a root the daemon does not serve, and a process that finds no daemon, write with their own client, as before.
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { DAEMON_READY_MS, daemonLog, daemonReady } from '../support/daemon-ready.js';
import { runMem } from '../support/harness.js';
import { tempRoot } from '../support/temp-root.js';

const on = { MEM_DAEMON: 'on' };

describe('small writes through the search daemon', () => {
  let rootA: string;
  let rootB: string;
  let noDaemonDir: string;
  /** The daemon's log (beside its socket): one line per index call it made, naming the root. */
  let logFile: string;
  const indexLines = async (root: string) =>
    (await readFile(logFile, 'utf8').catch(() => '')).split('\n').filter((l) => l.startsWith('index ') && l.includes(` for ${root} (`));

  beforeAll(async () => {
    rootA = await e2eRoot({ 'kim/semantic/plant.md': 'Kim waters the fig tree every Sunday.\n' }, 'memdir-e2e-dwrite-a-');
    rootB = await e2eRoot({ 'lee/semantic/cat.md': 'Lee feeds the cat at noon.\n' }, 'memdir-e2e-dwrite-b-');
    noDaemonDir = await tempRoot({}, 'memdir-e2e-dwrite-sock-');
    logFile = daemonLog(rootA, on);
    // The first search starts the daemon with root A open; wait until it serves A.
    expect((await runMem(['search', 'fig tree', '--user', 'kim', '--json'], { root: rootA, env: on })).code).toBe(0);
    // Ready, not just listed: an index call goes only to a root whose memory the daemon has opened.
    await daemonReady(rootA, on);
  }, DAEMON_READY_MS + 60_000);
  afterAll(async () => {
    await disposeE2eRoot(rootA);
    await disposeE2eRoot(rootB, noDaemonDir);
  });

  it('syncs an edit of a served root through the daemon, and the next command finds it', async () => {
    const before = (await indexLines(rootA)).length;
    await appendFile(join(rootA, 'kim/semantic/plant.md'), '\nKim repotted the lemon tree on Saturday.\n');
    const sync = await runMem(['reindex', '--json'], { root: rootA, env: on });
    expect(sync.code).toBe(0);
    expect(sync.json.upserted).toBeGreaterThan(0);
    const lines = (await indexLines(rootA)).slice(before);
    expect(
      lines.some((l) => /^index (insert|upsert) \(\d+\)/.test(l)),
      lines.join('\n'),
    ).toBe(true);
    expect(lines.some((l) => l.startsWith('index flush'))).toBe(true);
    // The next command, in process (no daemon), sees the edit.
    const found = await runMem(['search', 'lemon tree repotted', '--user', 'kim', '--mode', 'bm25', '--json'], { root: rootA });
    expect(found.json.results.map((r: { content: string }) => r.content).join('\n')).toContain('lemon tree');
  });

  it("adds a memory through the daemon: its lookups and write; the daemon's next search finds it", async () => {
    const before = (await indexLines(rootA)).length;
    const add = await runMem(['add', 'Kim is learning the cello with a teacher in Lyon', '--user', 'kim', '--json'], { root: rootA, env: on });
    expect(add.code).toBe(0);
    expect(add.json.action).toBe('ADD');
    const lines = (await indexLines(rootA)).slice(before);
    expect(
      lines.some((l) => /^index (insert|upsert) /.test(l)),
      lines.join('\n'),
    ).toBe(true);
    const found = await runMem(['search', 'which instrument is Kim learning', '--user', 'kim', '--json'], { root: rootA, env: on });
    expect(found.json.results[0].id).toBe(add.json.id);
  });

  it('writes a root the daemon does not serve with its own client: the daemon makes no call for it', async () => {
    await appendFile(join(rootB, 'lee/semantic/cat.md'), '\nLee bought the cat a blue collar.\n');
    // Root B is synced (its first sync: every file) with the daemon of root A running.
    const sync = await runMem(['reindex', '--json'], { root: rootB, env: on });
    expect(sync.code).toBe(0);
    expect(sync.json.upserted).toBeGreaterThan(0);
    expect(await indexLines(rootB)).toEqual([]);
    const found = await runMem(['search', 'blue collar', '--user', 'lee', '--mode', 'bm25', '--json'], { root: rootB });
    expect(found.json.results.map((r: { content: string }) => r.content).join('\n')).toContain('blue collar');
  });

  it('syncs with its own client when no daemon runs for its configuration', async () => {
    const before = (await indexLines(rootA)).length;
    await appendFile(join(rootA, 'kim/semantic/plant.md'), '\nKim planted basil by the window.\n');
    // Another socket folder: no daemon answers there (the one serving A is not asked).
    const alone = { ...on, XDG_RUNTIME_DIR: noDaemonDir };
    const sync = await runMem(['reindex', '--json'], { root: rootA, env: alone });
    expect(sync.code).toBe(0);
    expect(sync.json.upserted).toBeGreaterThan(0);
    expect((await indexLines(rootA)).slice(before)).toEqual([]);
    const found = await runMem(['search', 'basil window', '--user', 'kim', '--mode', 'bm25', '--json'], { root: rootA });
    expect(found.json.results.map((r: { content: string }) => r.content).join('\n')).toContain('basil');
  });
});
