// One search daemon per user and servers' home: two roots searched through the real `bin/mem` (with a servers'
// home of this file's own) share one daemon process, never see each other's rows, `mem server stop` of one root
// keeps the other served (and says the shared servers still run), `mem status` lists the daemon, `mem server status`
// marks open only the collection the daemon has open, `--all` returns only once the daemon is gone, and the daemon
// restarts after a kill -9 and stops by itself when idle.
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { isAlive } from '../../src/adapters/state/process-alive.js';
import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { eventually } from '../support/eventually.js';
import { runMem } from '../support/harness.js';

/** The `mem daemon` processes running under this servers' home (their environment names it). */
async function daemonProcesses(home: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = (await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '')).split('\0');
    // `mem --root <root> daemon [--warm-user <user>]`
    if (!cmdline.slice(2).includes('daemon')) continue;
    const environ = (await readFile(`/proc/${name}/environ`, 'utf8').catch(() => '')).split('\0');
    if (environ.includes(`MEMDIR_SERVER_HOME=${home}`)) pids.push(Number(name));
  }
  return pids;
}

/**
 * The output as if both searches had run at the same instant: the only differences two runs may have are the time
 * eligibility was checked at and the recency (and so the score) that moved by the seconds between them.
 */
function atSameTime(stdout: string): string {
  return (
    stdout
      .replace(/checked at \d{4}-\d\d-\d\dT[\d:.]+Z/g, 'checked at <now>')
      // The engine's scores and what is computed from them too, to 6 decimals: Milvus Lite scores in float32, and one CI
      // run saw a dense score differ by one float32 step between the two searches (0.84270507 / 0.84270513), most likely
      // because the segment's index was built in between (builds wait for a pause in writes) and answered instead of a
      // flat scan. The order and everything else stay compared byte for byte.
      .replace(/"(score|relevance|dense|bm25|second|window|recency)":(\d+\.\d+)/g, (_, key: string, n: string) => `"${key}":${Number(n).toFixed(6)}`)
  );
}

describe('one search daemon for every root', () => {
  let top: string;
  let home: string;
  let rootA: string;
  let rootB: string;
  let env: Record<string, string>;
  const mem = (root: string, args: string[], extra: Record<string, string> = {}) => runMem(args, { root, env: { ...env, ...extra } });
  const status = async (root: string) => (await mem(root, ['server', 'status', '--json'])).json;

  beforeAll(async () => {
    top = await e2eRoot({}, 'memdir-e2e-shared-daemon-');
    home = join(top, 'server-home');
    env = { MEMDIR_SERVER_HOME: home, MEM_DAEMON: 'on', MEM_GIT: 'off' };
    rootA = await e2eRoot({ 'kim/semantic/plant.md': 'Kim waters the fig tree every Sunday.\n' }, 'memdir-e2e-shared-a-');
    rootB = await e2eRoot({ 'lee/semantic/cat.md': 'Lee feeds the cat at noon and waters the fig tree on Mondays.\n' }, 'memdir-e2e-shared-b-');
  });
  afterAll(async () => {
    if (rootA) await mem(rootA, ['server', 'stop', '--all']);
    await disposeE2eRoot(undefined, rootA, rootB, top);
  });

  it('two roots searched: one daemon process holding both, answering as in-process (byte for byte but the time of the search)', async () => {
    expect((await mem(rootA, ['search', 'fig tree', '--user', 'kim', '--json'])).code).toBe(0);
    await eventually(async () => (await status(rootA)).daemon.roots?.includes(rootA), 'the daemon to hold root A', 120_000, 250);
    await mem(rootB, ['search', 'fig tree', '--user', 'lee', '--json']);
    const a = await status(rootA);
    const b = await status(rootB);
    expect(b.daemon.pid).toBe(a.daemon.pid);
    expect(b.daemon.roots).toEqual([rootA, rootB].sort());
    expect(await daemonProcesses(home)).toEqual([a.daemon.pid]);
    // `mem server status` lists it once, with the roots it holds open.
    const text = (await mem(rootA, ['server', 'status'])).stdout;
    expect(text.match(/^memd: running/gm)).toHaveLength(1);
    expect(text).toContain('2 roots open');

    for (const args of [
      ['search', 'fig tree', '--user', 'lee', '--json'],
      ['search', 'when is the cat fed', '--user', 'lee', '--explain'],
      ['search', 'fig tree', '--all-users', '--format', 'json'],
    ]) {
      const viaDaemon = await mem(rootB, args);
      const inProcess = await mem(rootB, args, { MEM_DAEMON: 'off' });
      expect(viaDaemon.code).toBe(0);
      expect(viaDaemon.stdout).not.toBe('');
      expect(atSameTime(viaDaemon.stdout)).toBe(atSameTime(inProcess.stdout));
    }
  });

  it('keeps the roots apart: neither root nor user sees the other root rows through the shared daemon', async () => {
    const pid = (await status(rootA)).daemon.pid;
    const kimInA = (await mem(rootA, ['search', 'fig tree', '--user', 'kim', '--json'])).json.results;
    expect(kimInA.map((r: { path: string }) => r.path)).toEqual(['kim/semantic/plant.md']);
    // Kim's memory is in root A only: searched as kim in root B, and as everyone in root B, it is not there.
    expect((await mem(rootB, ['search', 'fig tree', '--user', 'kim', '--json'])).json.results).toEqual([]);
    const allInB = (await mem(rootB, ['search', 'fig tree', '--all-users', '--json'])).json.results;
    expect(allInB.map((r: { path: string }) => r.path)).toEqual(['lee/semantic/cat.md']);
    // And the other way round: Lee's memory is not in root A.
    expect((await mem(rootA, ['search', 'cat', '--user', 'lee', '--json'])).json.results).toEqual([]);
    const allInA = (await mem(rootA, ['search', 'cat', '--all-users', '--json'])).json.results;
    expect(allInA.map((r: { path: string }) => r.path)).toEqual(['kim/semantic/plant.md']);
    expect((await status(rootA)).daemon.pid).toBe(pid); // all of it answered by the same daemon
  });

  it('`mem server stop` of one root releases only that root: the daemon keeps serving the other', async () => {
    const pid = (await status(rootA)).daemon.pid;
    const stop = await mem(rootA, ['server', 'stop', '--json']);
    expect(stop.json.stopped).toContain('memd (this root)');
    const after = await status(rootB);
    expect(after.daemon).toMatchObject({ running: true, pid, roots: [rootB] });
    // Root B's searches still go through it (no other daemon is started) and find its memory.
    const found = await mem(rootB, ['search', 'when is the cat fed', '--user', 'lee', '--json']);
    expect(found.json.results[0].path).toBe('lee/semantic/cat.md');
    expect(await daemonProcesses(home)).toEqual([pid]);
    expect((await status(rootB)).servers.every((s: { running: boolean }) => s.running)).toBe(true);
    // The shared servers kept running for root B, and the stop says so (the daemon only closed root A).
    expect(stop.json.keptRunning.sort()).toEqual(['embedder', 'milvus-lite']);
    const again = await mem(rootA, ['server', 'stop']);
    expect(again.stdout).toContain('still running: milvus-lite, embedder (used by 1 other root;');
    expect(again.stdout).not.toMatch(/no server was running|stopped memd/);
    // `mem status` lists the daemon as `mem server status` does.
    const rootStatus = await mem(rootB, ['status', '--json']);
    expect(rootStatus.json.daemon).toMatchObject({ name: 'memd', running: true, pid, roots: [rootB] });
    expect((await mem(rootB, ['status'])).stdout).toContain(`search daemon memd: running (pid ${pid}, this root open)`);
  });

  it("`mem server status` marks open in memd the collection the daemon has open; a replaced root's old collection is dropped, not left as an orphan", async () => {
    const before = (await status(rootB)).roots.find((r: { root: string; state: string }) => r.root === rootB && r.state === 'active');
    expect(before.openInMemd).toBe(true);
    // The root's state folder removed (a new root id, so a new collection): the first open drops the old collection
    // (review12: it held the memories' text and nothing reached it again), and the daemon opens the root again.
    await rm(join(rootB, '.mem'), { recursive: true, force: true });
    const found = await mem(rootB, ['search', 'when is the cat fed', '--user', 'lee', '--json']);
    expect(found.json.results[0].path).toBe('lee/semantic/cat.md');
    const after = await eventually(
      async () => {
        const roots = (await status(rootB)).roots.filter((r: { root: string }) => r.root === rootB);
        return roots.length === 1 && roots[0].openInMemd && roots;
      },
      'the daemon to hold the new collection',
      120_000,
      250,
    );
    expect(after[0]).toMatchObject({ state: 'active', openInMemd: true });
    expect(after[0].collection).not.toBe(before.collection);
    const all = (await status(rootB)).roots.map((r: { collection: string }) => r.collection);
    expect(all).not.toContain(before.collection);
    const text = (await mem(rootB, ['server', 'status'])).stdout;
    expect(text).not.toContain(before.collection);
  });

  it('is started again by the next search after a kill -9', async () => {
    const pid = (await status(rootB)).daemon.pid;
    process.kill(pid, 'SIGKILL');
    await eventually(async () => !isAlive(pid), 'the killed daemon to be gone', 10_000);
    // The search after the kill runs in-process (the socket is stale) and starts a new daemon.
    const found = await mem(rootB, ['search', 'when is the cat fed', '--user', 'lee', '--json']);
    expect(found.json.results[0].path).toBe('lee/semantic/cat.md');
    const fresh = await eventually(
      async () => (await status(rootB)).daemon.roots?.includes(rootB) && (await status(rootB)).daemon.pid,
      'a new daemon',
      120_000,
      250,
    );
    expect(fresh).not.toBe(pid);
    expect(await daemonProcesses(home)).toEqual([fresh]);
  });

  it('a search under other settings gets a daemon of its own; `mem server stop --all` returns once both are gone', async () => {
    // The daemon restarted by the previous test may still be opening its root (below): asked until status names it.
    const pid = await eventually(async () => (await status(rootA)).daemon.pid, 'the daemon in status', 60_000, 500);
    // Another fusion weight: the default daemon would answer with the wrong one, so it is not asked.
    const other = { MEM_DENSE_WEIGHT: '0.9' };
    expect((await mem(rootA, ['search', 'fig tree', '--user', 'kim', '--json'], other)).json.results[0].path).toBe('kim/semantic/plant.md');
    const pids = await eventually(
      async () => {
        const running = await daemonProcesses(home);
        return running.length === 2 && running;
      },
      'a second daemon for the other settings',
      120_000,
      250,
    );
    expect(pids).toContain(pid);
    expect((await status(rootA)).daemon.pid).toBe(pid);
    // A daemon just started loads the Milvus SDK for its warm-up search (daemon/server.ts): under load its event loop
    // may miss status's 2 s ping for a few seconds, so the status is asked until it names the daemon.
    const otherPid = await eventually(
      async () => (await mem(rootA, ['server', 'status', '--json'], other)).json.daemon.pid,
      'the other daemon in status',
      60_000,
      500,
    );
    expect(pids).toContain(otherPid);
    expect(otherPid).not.toBe(pid);

    const stop = await mem(rootA, ['server', 'stop', '--all', '--json']);
    expect(stop.json.stopped).toContain('memd');
    expect(isAlive(pid)).toBe(false);
    expect(isAlive(otherPid)).toBe(false);
    expect(await daemonProcesses(home)).toEqual([]);
    expect((await status(rootB)).daemon.running).toBe(false);
  });

  it('stops by itself after its idle time (MEM_DAEMON_IDLE)', async () => {
    const idle = { MEM_DAEMON_IDLE: '5s' };
    await mem(rootA, ['search', 'fig tree', '--user', 'kim', '--json'], idle);
    // Watched by its process, not by `mem server status`: a ping is a request and would keep it up.
    const [pid] = await eventually(
      async () => {
        const pids = await daemonProcesses(home);
        return pids.length === 1 && pids;
      },
      'the daemon to start',
      60_000,
      250,
    );
    await eventually(async () => !isAlive(pid!), 'the idle daemon to stop', 120_000, 250);
    expect(await daemonProcesses(home)).toEqual([]);
  });
});
