// The prompt hook where there is nothing to recall: a git repository without project memories and no personal memory.
// Claude Code runs the hook before every prompt; it must not start a search daemon (and with it the servers) on each
// of them for roots that hold no memory, and says nothing to the agent.
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config.js';
import { MEM_BIN, cleanEnv } from '../support/harness.js';
import { hookLog } from '../support/hook-log.js';
import { tempRoot } from '../support/temp-root.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/agents/claude-code-user-prompt-submit.json', import.meta.url));

/** One prompt hook through bin/mem, as Claude Code runs it: its exit code and what it printed. */
function prompt(input: string, env: Record<string, string>): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MEM_BIN, 'hook', 'claude-code', 'prompt', '--user', 'ann'], { env: cleanEnv(env) });
    let stdout = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout }));
    child.stdin.end(input);
  });
}

describe('the prompt hook with no memory to recall', () => {
  let home: string;
  let shop: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    home = await tempRoot({}, 'memdir-e2e-home-');
    shop = await tempRoot({ 'README.md': '# shop\n' }, 'memdir-e2e-shop-');
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: shop });
    await mkdir(join(home, 'run'), { mode: 0o700 });
    env = {
      HOME: home,
      MEMDIR_HOME: loadConfig(process.env).runtimeHome,
      MEM_PERSONAL_ROOT: join(home, '.memdir'),
      MEM_USER: 'ann',
      MEM_DAEMON: 'on',
      XDG_RUNTIME_DIR: join(home, 'run'),
    };
  });

  afterAll(async () => {
    for (const dir of [shop, home]) await rm(dir, { recursive: true, force: true });
  });

  it('starts no daemon, prompt after prompt, says nothing to the agent and logs no cold servers', async () => {
    const input = JSON.stringify({ ...JSON.parse(await readFile(FIXTURE, 'utf8')), cwd: shop });
    // The first prompt's log makes `memories/.mem/`: the second finds a project root that still holds no memory.
    for (let i = 0; i < 2; i++) expect(await prompt(input, env)).toEqual({ code: 0, stdout: '' });
    const sockets = await readdir(join(home, 'run', 'memdir')).catch(() => []);
    expect(sockets.filter((name) => name.startsWith('memd-'))).toEqual([]);
    const logged = await hookLog(join(shop, 'memories'));
    expect(logged).toHaveLength(2);
    for (const entry of logged) expect(entry).toMatchObject({ ok: true, event: 'prompt', detail: 'recalled 0' });
    expect(logged.some((e) => e.error !== undefined)).toBe(false);
  });
});
