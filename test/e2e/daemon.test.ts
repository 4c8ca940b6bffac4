// The search daemon: started by the first `mem search`, it answers later ones over its socket, sees writes
// made by other processes at once, and closes the root with `mem server stop` (shared-daemon.test.ts: several roots).

import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { MEM_BIN, cleanEnv, runMem } from '../support/harness.js';

const TRACE = fileURLToPath(new URL('../support/module-trace.mjs', import.meta.url));

/** Runs `bin/mem` (daemon on) and says which modules it loaded: whether the full CLI (commander) ran. */
async function traced(args: string[], root: string): Promise<{ code: number; stdout: string; stderr: string; fullCli: boolean }> {
  const dir = await mkdtemp(join(tmpdir(), 'memdir-trace-'));
  const file = join(dir, 'modules');
  try {
    const env = cleanEnv({ MEM_DAEMON: 'on', MEMDIR_TEST_MODULE_TRACE: file });
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, ['--import', TRACE, MEM_BIN, '--root', root, ...args], { env }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      ),
    );
    const modules = (await readFile(file, 'utf8')).split('\n');
    expect(modules.some((m) => m.endsWith('/bin/mem.js'))).toBe(true); // the trace itself works
    return { ...run, fullCli: modules.some((m) => m.endsWith('/dist/cli/main.js') || m.includes('/node_modules/commander/')) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The output as if both searches had run at the same instant (the time eligibility was checked at, and recency with it). */
const atSameTime = (stdout: string) =>
  stdout
    .replace(/checked at \d{4}-\d\d-\d\dT[\d:.]+Z/g, 'checked at <now>')
    .replace(/"(score|recency)":(\d+\.\d+)/g, (_, key: string, n: string) => `"${key}":${Number(n).toFixed(6)}`)
    .replace(/score (\d\.\d+)/g, (_, n: string) => `score ${Number(n).toFixed(2)}`)
    .replace(/recency (\d\.\d+)/g, (_, n: string) => `recency ${Number(n).toFixed(2)}`);

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

const daemonOn = (args: string[], root: string) => runMem(args, { root, env: { MEM_DAEMON: 'on' } });

describe('search daemon', () => {
  let root: string;
  beforeAll(async () => {
    root = await e2eRoot({ 'kim/semantic/plant.md': 'Kim waters the fig tree every Sunday.\n' }, 'memdir-e2e-daemon-');
  });
  afterAll(async () => {
    await disposeE2eRoot(root);
  });

  it('starts after the first search and then answers with the same results', async () => {
    const first = await daemonOn(['search', 'when does Kim water plants', '--user', 'kim', '--json'], root);
    expect(first.code).toBe(0);
    const running = await waitFor(async () => (await daemonOn(['server', 'status', '--json'], root)).json?.daemon?.running === true, 30_000);
    expect(running).toBe(true);
    const second = await daemonOn(['search', 'when does Kim water plants', '--user', 'kim', '--json'], root);
    expect(second.json.results.map((r: { id: string }) => r.id)).toEqual(first.json.results.map((r: { id: string }) => r.id));
    expect(second.json.results[0].path).toBe('kim/semantic/plant.md');
  });

  it('sees a memory added and then forgotten by other processes, and keeps users apart', async () => {
    const add = await runMem(['add', 'Kim is learning Portuguese for a trip to Porto', '--user', 'kim', '--json'], { root });
    const found = await daemonOn(['search', 'which language is Kim learning', '--user', 'kim', '--json'], root);
    expect(found.json.results[0].id).toBe(add.json.id);
    expect((await daemonOn(['search', 'which language is Kim learning', '--user', 'lee', '--json'], root)).json.results).toEqual([]);
    await runMem(['forget', add.json.id], { root });
    const gone = await daemonOn(['search', 'which language is Kim learning', '--user', 'kim', '--json'], root);
    expect(gone.json.results.map((r: { id: string }) => r.id)).not.toContain(add.json.id);
  });

  it('reports usage errors with the same exit code as in-process', async () => {
    const bad = await daemonOn(['search', 'x', '--user', 'kim', '--type', 'nonsense'], root);
    expect(bad.code).toBe(2);
  });

  it('answers a plain search without loading the full CLI, with the output of the full CLI', async () => {
    // `-ukim` means `--user kim` to commander; the fast path leaves that form to the full CLI.
    for (const extra of [['--json'], [], ['--explain', '-k', '3'], ['--format', 'context']]) {
      const fast = await traced(['search', 'when does Kim water plants', '--user', 'kim', ...extra], root);
      const full = await traced(['search', 'when does Kim water plants', '-ukim', ...extra], root);
      expect([fast.fullCli, full.fullCli]).toEqual([false, true]);
      expect([fast.code, fast.stderr]).toEqual([0, '']);
      expect(full.code).toBe(0);
      expect(atSameTime(fast.stdout)).toBe(atSameTime(full.stdout));
      expect(fast.stdout).toContain('Kim waters the fig tree');
    }
  });

  it('leaves to the full CLI what the daemon refuses, with the same error and exit code', async () => {
    const empty = await traced(['search', '   ', '--user', 'kim', '--json'], root);
    expect(empty.fullCli).toBe(true);
    expect(empty.code).toBe(2);
    expect(JSON.parse(empty.stdout).error.message).toMatch(/query is empty/);
    const badUser = await traced(['search', 'fig', '--user', '../kim'], root);
    expect(badUser.fullCli).toBe(true);
    expect(badUser.code).toBe(2);
    expect(badUser.stderr).toMatch(/^mem: /);
    const help = await traced(['search', '--help'], root);
    expect([help.fullCli, help.code]).toEqual([true, 0]);
    expect(help.stdout).toContain('Usage: mem search [options] <query>');
  });

  it('closes this root with `mem server stop`; the next search still works and opens it again', async () => {
    const stop = await runMem(['server', 'stop', '--json'], { root });
    expect(stop.json.stopped).toContain('memd (this root)');
    // The daemon serves every root of the run: it may keep running for the others, without this one.
    expect((await daemonOn(['server', 'status', '--json'], root)).json.daemon.roots ?? []).not.toContain(root);
    const again = await daemonOn(['search', 'fig tree', '--user', 'kim', '--json'], root);
    expect(again.json.results[0].path).toBe('kim/semantic/plant.md');
    // Let the daemon hold the root again before afterAll stops everything, so nothing outlives the test.
    expect(await waitFor(async () => (await daemonOn(['server', 'status', '--json'], root)).json?.daemon?.roots?.includes(root) === true, 30_000)).toBe(true);
  });
});
