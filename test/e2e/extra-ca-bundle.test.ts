// The host's extra CA bundle (NODE_EXTRA_CA_CERTS), which Node reads at every start, through the real bin/mem launcher:
// a search the warm daemon answers and the prompt hook `mem integrate` writes start without it, while the full CLI a
// search falls back to and the daemon it starts still get it. The bundle here is a file that does not exist: Node
// warns "Ignoring extra certs from ..." on stderr whenever a process starts with it, so the warning shows who had it.
import { spawn } from 'node:child_process';
import { chmod, mkdir, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { agentWorld } from '../support/agent-world.js';
import { eventually } from '../support/eventually.js';
import { cleanEnv, runMem } from '../support/harness.js';

const LAUNCHER = fileURLToPath(new URL('../../bin/mem', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/agents/claude-code-user-prompt-submit.json', import.meta.url));
const WARNING = 'Ignoring extra certs from';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** One process, as a shell or an agent starts it (no Node in front): its exit code and output. */
function launch(command: string, args: string[], env: NodeJS.ProcessEnv, input = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** How many times Node warned about the bundle in this output: once per process that started with it. */
const warnings = (stderr: string) => stderr.split(WARNING).length - 1;

describe('the extra CA bundle through the bin/mem launcher', () => {
  let home: string;
  let shop: string;
  let personal: string;
  let bundle: string;
  let env: NodeJS.ProcessEnv;
  const shopRoot = () => join(shop, 'memories');

  /** The daemons' logs (their stderr) in this file's own socket folder. */
  async function daemonLogs(): Promise<string> {
    const dir = join(home, 'run');
    const found = (await readdir(dir, { recursive: true })).filter((f) => /memd-[0-9a-f]+\.log$/.test(f));
    return (await Promise.all(found.map((f) => readFile(join(dir, f), 'utf8')))).join('\n');
  }

  beforeAll(async () => {
    // A loaded 2-core machine can hold a search past the hook's default 1 s; who had the bundle is checked here.
    let world: Record<string, string>;
    ({ home, shop, personal, env: world } = await agentWorld({ MEM_HOOK_PROMPT_MS: '30000' }));
    bundle = join(home, 'no-such-bundle.pem');
    env = cleanEnv({ ...world, NODE_EXTRA_CA_CERTS: bundle });
    const add = async (root: string, text: string) => expect((await runMem(['add', text, '--user', 'ann'], { root, env: { HOME: home } })).code).toBe(0);
    await add(shopRoot(), 'The shop uses pnpm as its package manager, never npm.');
    await add(personal, 'Ann wants package manager commands spelled out in full.');
  }, 300_000);

  afterAll(async () => {
    for (const root of [shopRoot(), personal]) await runMem(['server', 'stop'], { root, env: { HOME: home, XDG_RUNTIME_DIR: join(home, 'run') } });
    for (const dir of [shop, home]) await rm(dir, { recursive: true, force: true });
  });

  it('a search with no daemon runs in the full CLI, with the bundle, and so does the daemon it starts; warm, the search starts without it', async () => {
    const search = ['--root', shopRoot(), 'search', 'package manager', '--user', 'ann'];
    const cold = await launch(LAUNCHER, search, env);
    expect(cold.code).toBe(0);
    expect(cold.stdout).toContain('pnpm');
    // One process started with the bundle: the full CLI, run again in a child (the launcher's own process had none).
    expect(warnings(cold.stderr)).toBe(1);

    const warm = await eventually(
      async () => {
        const r = await launch(LAUNCHER, search, env);
        return r.code === 0 && warnings(r.stderr) === 0 ? r : undefined;
      },
      'a search answered by the warm daemon, without the bundle',
      240_000,
      1_000,
    );
    expect(warm.stdout).toContain('pnpm');
    expect(warm.stderr).toBe('');
    // The daemon that answered started with the bundle: it may reach a remote endpoint signed by it.
    expect(warnings(await daemonLogs())).toBeGreaterThanOrEqual(1);
    expect(await daemonLogs()).toContain(bundle);
  }, 300_000);

  it('the prompt hook `mem integrate` writes starts without the bundle, with its own Node whatever is on PATH', async () => {
    const integrate = await launch(LAUNCHER, ['integrate', 'claude-code', '--scope', 'user', '--prompt-recall', '--dir', shop], env);
    expect(integrate.code).toBe(0);
    expect(warnings(integrate.stderr)).toBe(1); // not a fast path: unchanged
    const settings = JSON.parse(await readFile(join(home, '.claude', 'settings.json'), 'utf8'));
    const command = settings.hooks.UserPromptSubmit[0].hooks[0].command as string;
    expect(command).toMatch(/^MEMDIR_NODE=\S+ \S+\/bin\/mem hook claude-code prompt --user ann$/);

    // A `node` first on PATH that is not Node: the hook must run the one it was installed with.
    const fakeBin = join(home, 'fake-bin');
    await mkdir(fakeBin);
    await writeFile(join(fakeBin, 'node'), '#!/bin/sh\necho "not this node" >&2\nexit 99\n');
    await chmod(join(fakeBin, 'node'), 0o755);
    const hookEnv = { ...env, PATH: `${fakeBin}:${env['PATH']}` };
    const payload = JSON.stringify({ ...JSON.parse(await readFile(FIXTURE, 'utf8')), cwd: shop });
    // As Claude Code runs it: through a shell, the payload on stdin. The first prompts warm the personal daemon up.
    const run = await eventually(
      async () => {
        const r = await launch('/bin/sh', ['-c', command], hookEnv, payload);
        expect(r.code).toBe(0);
        expect(r.stderr).toBe('');
        return r.stdout.includes('scope=\\"personal\\"') && r.stdout.includes('scope=\\"project\\"') ? r : undefined;
      },
      'a recall from both warm daemons',
      240_000,
      1_000,
    );
    expect(run.stdout).toContain('pnpm');
    expect(run.stdout).toContain('spelled out in full');
  }, 300_000);

  it('a symlinked mem, as npm links bins (a link to a relative link), runs; other commands keep the bundle', async () => {
    const bin = join(home, 'bin');
    const lib = join(home, 'lib', 'node_modules', '.bin');
    await mkdir(bin, { recursive: true });
    await mkdir(lib, { recursive: true });
    await symlink(LAUNCHER, join(lib, 'mem'));
    await symlink('../lib/node_modules/.bin/mem', join(bin, 'mem'));
    const linked = join(bin, 'mem');
    expect(dirname(linked)).toBe(bin);

    const version = await launch(linked, ['--version'], env);
    expect([version.code, version.stderr]).toEqual([0, '']);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
    const search = await launch(linked, ['--root', shopRoot(), 'search', 'package manager', '--user', 'ann'], env);
    expect([search.code, search.stderr]).toEqual([0, '']);
    expect(search.stdout).toContain('pnpm');
    // A command the fast path leaves to the full CLI: the full CLI's answer and exit code, from the child that has the bundle.
    const typo = await launch(linked, ['search', 'pnpm', '--bogus'], env);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("unknown option '--bogus'");
    expect(warnings(typo.stderr)).toBe(1);
    // Not a fast path: started exactly as before, bundle and all.
    const help = await launch(linked, ['--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: mem');
    expect(warnings(help.stderr)).toBe(1);
  }, 120_000);

  it('a SIGTERM to a search running in the full CLI reaches the child that runs it, and the search dies of it', async () => {
    // No daemon: the search runs in the full CLI, in a child of the process the launcher started.
    const child = spawn(LAUNCHER, ['--root', shopRoot(), 'search', 'package manager', '--user', 'ann'], { env: { ...env, MEM_DAEMON: 'off' } });
    const closed = new Promise<string | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
    const rerun = await eventually(async () => {
      const pids = (await readFile(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8')).trim();
      return pids ? Number(pids.split(' ')[0]) : undefined;
    }, 'the child that runs the full CLI');
    child.kill('SIGTERM');
    expect(await closed).toBe('SIGTERM');
    expect(() => process.kill(rerun, 0)).toThrow(/ESRCH/);
  }, 120_000);
});
