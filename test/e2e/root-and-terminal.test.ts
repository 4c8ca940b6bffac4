// The root and the terminal, through the real `bin/mem`: a root that is a file, mistyped or read-only is a
// clear error (and a mistyped one is not created); a deep root still gets its search daemon; escape sequences
// in memories reach the terminal only as visible text; the repository's git hooks run on memdir's commits.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config.js';
import { MEM_BIN, cleanEnv, runMem, type MemRun } from '../support/harness.js';
import { snapshot } from '../support/sync-fixture.js';
import { tempRoot } from '../support/temp-root.js';

const exec = promisify(execFile);

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

/** `mem` in a private mount namespace where `root` is mounted read-only (as root, permissions alone would not stop a write). */
async function memOnReadOnlyRoot(root: string, args: string[]): Promise<MemRun> {
  const script = 'mount --bind -o ro "$1" "$1" && shift && exec "$@"';
  try {
    const { stdout, stderr } = await exec('unshare', ['-m', 'sh', '-c', script, 'sh', root, process.execPath, MEM_BIN, '--root', root, ...args], {
      env: cleanEnv(),
    });
    return { code: 0, stdout, stderr, json: JSON.parse(stdout) };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    let json: unknown;
    try {
      json = JSON.parse(e.stdout);
    } catch {
      json = undefined;
    }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr, json };
  }
}

describe('the root', () => {
  let base: string;
  beforeAll(async () => {
    base = await tempRoot({ 'not-a-folder.md': 'I am a file.\n' }, 'memdir-e2e-root-');
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('--root at a file is a usage error for every command, before any server starts', async () => {
    const file = join(base, 'not-a-folder.md');
    for (const args of [['search', 'x', '--user', 'alice'], ['add', 'Alice likes tea', '--user', 'alice'], ['status'], ['reindex']]) {
      const run = await runMem([...args, '--json'], { root: file });
      expect(run.code).toBe(2);
      expect(run.json.error).toEqual({ code: 'USAGE', message: `memory root ${file} is a file, not a folder (--root names the folder of memory files)` });
    }
    expect((await runMem(['status'], { root: join(file, 'below') })).stderr).toMatch(/a part of this path is a file, not a folder/);
    expect(await readFile(file, 'utf8')).toBe('I am a file.\n');
  });

  it('a mistyped root is not created by a command that only reads or syncs', async () => {
    const typo = join(base, 'a', 'b', 'c');
    for (const args of [['search', 'x', '--user', 'alice'], ['status'], ['doctor'], ['reindex'], ['show', 'some-id']]) {
      const run = await runMem([...args, '--json'], { root: typo });
      expect(run.code).toBe(2);
      expect(run.json.error.message).toBe(`no memory root at ${typo} (check --root or $MEM_ROOT; \`mem add\` creates a new one)`);
    }
    expect(Object.keys(await snapshot(base))).toEqual(['not-a-folder.md']);
  });

  it('a read-only root can be searched; a command that writes says so (exit 1), never "a bug in memdir"', async () => {
    const root = await tempRoot({ 'alice/semantic/tea.md': 'Alice drinks sencha every morning.\n' }, 'memdir-e2e-ro-');
    // Its index and servers live under the runtime home instead.
    const state = join(loadConfig(cleanEnv(), { root }).runtimeHome, 'roots', createHash('sha256').update(root).digest('hex').slice(0, 16));
    try {
      const found = await memOnReadOnlyRoot(root, ['search', 'what does Alice drink', '--user', 'alice', '--json']);
      expect(found.code).toBe(0);
      expect(found.json.results.map((r: { path: string }) => r.path)).toEqual(['alice/semantic/tea.md']);
      const before = await snapshot(root);
      const run = await memOnReadOnlyRoot(root, ['reindex', '--json']);
      expect(run.code).toBe(1);
      expect(run.json.error).toEqual({ code: 'READ_ONLY_ROOT', message: `memory root ${root} is read-only: this command writes to it` });
      const add = await memOnReadOnlyRoot(root, ['add', 'Alice likes oolong', '--user', 'alice']);
      expect(add.code).toBe(1);
      expect(add.stderr).toContain('is read-only');
      expect(add.stderr).not.toMatch(/bug in memdir/);
      expect(await snapshot(root)).toEqual(before);
      expect(Object.keys(before)).toEqual(['alice/semantic/tea.md']); // no .mem/ was made in it
    } finally {
      await memOnReadOnlyRoot(root, ['server', 'stop']);
      await rm(state, { recursive: true, force: true });
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('a root deeper than a Unix socket path allows', () => {
  let root: string;
  beforeAll(async () => {
    const top = await tempRoot({}, 'memdir-e2e-deep-');
    root = join(top, 'a-folder-name-that-is-long-enough'.repeat(3), 'and-another-level-of-memories');
    await mkdir(join(root, 'kim', 'semantic'), { recursive: true });
    await writeFile(join(root, 'kim', 'semantic', 'plant.md'), 'Kim waters the fig tree every Sunday.\n');
  });
  afterAll(async () => {
    await runMem(['server', 'stop'], { root });
  });

  it('still gets its search daemon, which answers later searches', async () => {
    expect(join(root, '.mem', 'servers', 'memd.sock').length).toBeGreaterThan(108);
    const env = { MEM_DAEMON: 'on' };
    const first = await runMem(['search', 'when does Kim water plants', '--user', 'kim', '--json'], { root, env });
    expect(first.code).toBe(0);
    expect(await waitFor(async () => (await runMem(['server', 'status', '--json'], { root, env })).json?.daemon?.running === true, 60_000)).toBe(true);
    const second = await runMem(['search', 'when does Kim water plants', '--user', 'kim', '--json'], { root, env });
    expect(second.json.results[0].path).toBe('kim/semantic/plant.md');
    expect(second.stderr).not.toMatch(/bug in memdir/);
  });
});

describe('the terminal and git', () => {
  let root: string;
  const hostile = 'Alice\u001b]0;owned\u0007 likes \u001b[31mred\u001b[0m tea\rERASED \u202egnp.exe';
  beforeAll(async () => {
    root = await tempRoot({ 'alice/semantic/tea.md': `---\ntags: [drinks]\n---\n${hostile}\n` }, 'memdir-e2e-term-');
  });
  afterAll(async () => {
    await runMem(['server', 'stop'], { root });
  });

  it('text output shows escape sequences from memories as visible text, JSON keeps them exact', async () => {
    const text = await runMem(['search', 'red tea', '--user', 'alice'], { root });
    expect(text.code).toBe(0);
    // eslint-disable-next-line no-control-regex -- no control character may reach the terminal
    expect(text.stdout).not.toMatch(/[\u001b\u0007\r\u202e]/);
    expect(text.stdout).toContain('Alice\\u001b]0;owned\\u0007 likes \\u001b[31mred\\u001b[0m tea');
    expect(text.stdout).toContain('\\u202egnp.exe');
    const context = await runMem(['search', 'red tea', '--user', 'alice', '--format', 'context'], { root });
    // eslint-disable-next-line no-control-regex -- no control character may reach the terminal
    expect(context.stdout).not.toMatch(/[\u001b\u0007\r\u202e]/);
    const json = await runMem(['search', 'red tea', '--user', 'alice', '--json'], { root });
    expect(json.json.results[0].content).toContain('Alice\u001b]0;owned\u0007 likes \u001b[31mred\u001b[0m tea');
  });

  it("memdir's commits run the repository's hooks: a refusing pre-commit hook fails the add and leaves nothing", async () => {
    await runMem(['add', 'Alice has a cat named Miso', '--user', 'alice', '--json'], { root }); // makes the repository
    const hook = join(root, '.git', 'hooks', 'pre-commit');
    await writeFile(hook, '#!/bin/sh\necho "secret scanner: refused" >&2\nexit 1\n');
    await chmod(hook, 0o755);
    const memoryFiles = async () => Object.fromEntries(Object.entries(await snapshot(root)).filter(([p]) => !p.startsWith('.git/')));
    const before = await memoryFiles();
    const refused = await runMem(['add', 'Alice has a dog named Tofu', '--user', 'alice', '--json'], { root });
    expect(refused.code).toBe(1);
    expect(refused.json.error.message).toContain('secret scanner: refused');
    expect(await memoryFiles()).toEqual(before);

    await writeFile(hook, `#!/bin/sh\ntouch "${join(root, '..', 'hook-ran')}"\n`);
    const passed = await runMem(['add', 'Alice has a dog named Tofu', '--user', 'alice', '--json'], { root });
    expect(passed.code).toBe(0);
    expect(await readFile(join(root, '..', 'hook-ran'), 'utf8')).toBe('');
  });
});
