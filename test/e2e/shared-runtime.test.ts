// One runtime per machine, through the real `bin/mem`: two roots share one Milvus Lite and one embedding server
// (processes counted), never see each other's rows, stopping one root's work leaves the other's servers running,
// a server killed with SIGKILL is restarted by the next command of any root, the servers stop by themselves when idle.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { isAlive } from '../../src/adapters/state/process-alive.js';
import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { eventually } from '../support/eventually.js';
import { runMem } from '../support/harness.js';
import { ownServerHome, serverRecord } from '../support/server-home.js';

/** Pids of the server processes started for this server home (their environment names its records folder). */
async function serverProcesses(home: string): Promise<{ milvus: number[]; embedder: number[] }> {
  const found = { milvus: [] as number[], embedder: [] as number[] };
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const environ = await readFile(`/proc/${name}/environ`, 'utf8').catch(() => '');
    if (!environ.split('\0').includes(`MEMDIR_SERVER_WATCH=${join(home, 'servers')}`)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    (cmdline.includes('milvus_lite') ? found.milvus : found.embedder).push(Number(name));
  }
  return found;
}

const ANN = 'Ann keeps a pet axolotl named Pickles in a tank by the window.\n';
const BOB = 'Bob bakes sourdough bread every Sunday morning.\n';

describe('two roots on one shared runtime', () => {
  const home = ownServerHome();
  let a: string | undefined;
  let b: string | undefined;
  beforeAll(async () => {
    a = await e2eRoot({ 'ann/semantic/pet.md': ANN }, 'memdir-e2e-shared-a-');
    b = await e2eRoot({ 'bob/semantic/bread.md': BOB }, 'memdir-e2e-shared-b-');
  });
  afterAll(async () => {
    await disposeE2eRoot(a);
    await disposeE2eRoot(b);
  });

  it('share one server of each kind, started once by two roots racing, each root in its own collection', async () => {
    // No server runs yet: both commands race to start them.
    const runs = await Promise.all([runMem(['reindex', '--json'], { root: a! }), runMem(['reindex', '--json'], { root: b! })]);
    expect(runs.map((r) => r.code)).toEqual([0, 0]);
    const procs = await serverProcesses(home());
    expect([procs.milvus.length, procs.embedder.length]).toEqual([1, 1]);
    const status = await runMem(['server', 'status', '--json'], { root: b! });
    expect(status.json.servers.map((s: { name: string; running: boolean }) => [s.name, s.running])).toEqual([
      ['milvus-lite', true],
      ['embedder', true],
    ]);
    const roots = status.json.roots as { root: string; collection: string; state: string; current: boolean }[];
    expect(roots.map((r) => [r.root, r.state, r.current]).sort()).toEqual(
      [
        [a, 'active', false],
        [b, 'active', true],
      ].sort(),
    );
    expect(new Set(roots.map((r) => r.collection)).size).toBe(2);
  });

  it("never show one root's rows to the other", async () => {
    const fromB = await runMem(['search', 'axolotl named Pickles', '--all-users', '--json'], { root: b! });
    expect(fromB.code).toBe(0);
    expect(fromB.stdout).not.toContain('Pickles');
    expect(fromB.json.results.map((r: { path: string }) => r.path)).toEqual(['bob/semantic/bread.md']);
    const fromA = await runMem(['search', 'axolotl named Pickles', '--all-users', '--json'], { root: a! });
    expect(fromA.json.results.map((r: { path: string }) => r.path)).toEqual(['ann/semantic/pet.md']);
  });

  it('restarts a shared server killed with SIGKILL on the next command of any root', async () => {
    const before = await serverRecord(home(), 'milvus-lite');
    process.kill(before.pid, 'SIGKILL');
    await eventually(async () => !isAlive(before.pid), 'the killed server to be gone', 10_000);
    const again = await runMem(['search', 'sourdough', '--user', 'bob', '--json'], { root: b! });
    expect(again.code).toBe(0);
    expect(again.json.results[0].path).toBe('bob/semantic/bread.md');
    const after = await serverRecord(home(), 'milvus-lite');
    expect(after.pid).not.toBe(before.pid);
    expect((await serverProcesses(home())).milvus).toEqual([after.pid]);
  });

  it("`server stop` of one root leaves the other's servers running; of the last, stops them before it returns", async () => {
    const pids = [(await serverRecord(home(), 'milvus-lite')).pid, (await serverRecord(home(), 'embedder')).pid];
    const stopA = await runMem(['server', 'stop', '--json'], { root: a! });
    expect(stopA.code).toBe(0);
    expect(stopA.json.stopped).toEqual([]);
    expect(pids.every(isAlive)).toBe(true);
    const released = (await runMem(['server', 'status', '--json'], { root: b! })).json.roots.find((r: { root: string }) => r.root === a);
    expect(released.state).toBe('released');

    const stopB = await runMem(['server', 'stop', '--json'], { root: b! });
    expect(stopB.json.stopped.sort()).toEqual(['embedder', 'milvus-lite']);
    // Nothing it stopped still runs when it returns.
    expect(pids.map(isAlive)).toEqual([false, false]);
    expect(await serverProcesses(home())).toEqual({ milvus: [], embedder: [] });
  });
});

describe('idle shared servers, and `server stop --all`', () => {
  const home = ownServerHome();
  let root: string | undefined;
  afterAll(async () => {
    await disposeE2eRoot(root);
  });

  it('stop by themselves after MEM_SERVER_IDLE without calls', async () => {
    root = await e2eRoot({ 'ann/semantic/tea.md': 'Ann drinks green tea every morning.\n' }, 'memdir-e2e-idle-');
    const env = { MEM_SERVER_IDLE: '5s' };
    expect((await runMem(['search', 'what does Ann drink', '--user', 'ann', '--json'], { root, env })).code).toBe(0);
    const pids = [(await serverRecord(home(), 'milvus-lite')).pid, (await serverRecord(home(), 'embedder')).pid];
    expect(pids.every(isAlive)).toBe(true);
    await eventually(async () => pids.every((pid) => !isAlive(pid)), 'both idle servers to exit', 60_000, 500);
    // The root is still there and usable: the next command starts them again.
    const again = await runMem(['search', 'what does Ann drink', '--user', 'ann', '--json'], { root, env });
    expect(again.json.results[0].path).toBe('ann/semantic/tea.md');
    // `--all` stops them whatever roots use them, and returns once neither runs.
    const all = await runMem(['server', 'stop', '--all', '--json'], { root, env });
    expect(all.json.stopped.sort()).toEqual(['embedder', 'milvus-lite']);
    expect(await serverProcesses(home())).toEqual({ milvus: [], embedder: [] });
  });
});
