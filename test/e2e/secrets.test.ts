// Secrets through the real bin/mem: `mem add` refuses the common forms (nothing of them on disk or in git), a
// captured turn is stored with them redacted in place, commit messages and every output a model reads (MCP tools,
// the session-start hook, `search --format context`) show them masked.
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config.js';
import type { HookLogEntry } from '../../src/services/ports.js';
import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { eventually } from '../support/eventually.js';
import { MEM_BIN, cleanEnv, runMem } from '../support/harness.js';
import { tempRoot } from '../support/temp-root.js';

// Built at run time, so no scanner takes this file for a leak.
const walk = (n: number, alphabet: string) => Array.from({ length: n }, (_, i) => alphabet[(i * 7 + 3) % alphabet.length]).join('');
const B64 = 'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xYzC+/';
const ALNUM = 'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xYzC';
const AWS_SECRET = walk(40, B64);
const DB_PASSWORD = `Pg${walk(12, ALNUM)}`;
const GITHUB_HEX = walk(40, '0123456789abcdef');
const JWT = `eyJ${walk(20, ALNUM)}.eyJ${walk(30, ALNUM)}.${walk(43, ALNUM)}`;
const NPM = `npm_${walk(36, ALNUM)}`;
const GLPAT = `glpat-${walk(20, ALNUM)}`;
const JSON_PASSWORD = `Js${walk(11, ALNUM)}`;

/** [the text a user adds, the secret in it] */
const REFUSED: [string, string][] = [
  [`Deploy with AWS_SECRET_ACCESS_KEY=${AWS_SECRET} from the CI box`, AWS_SECRET],
  [`The staging database uses DB_PASSWORD=${DB_PASSWORD}`, DB_PASSWORD],
  [`CI reads GITHUB_TOKEN=${GITHUB_HEX} for releases`, GITHUB_HEX],
  [`The service config is {"user": "app", "password": "${JSON_PASSWORD}"}`, JSON_PASSWORD],
  [`Call the API with Authorization: Bearer ${JWT}`, JWT],
  [`Publish with the npm token ${NPM}`, NPM],
  [`The GitLab mirror uses ${GLPAT}`, GLPAT],
];

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

/** Every file under the folder that holds the bytes (`grep -r`, .git and .mem included); empty when none does. */
function grepR(dir: string, needle: string): string {
  try {
    return execFileSync('grep', ['-rlF', '--', needle, dir], { encoding: 'utf8' });
  } catch {
    return ''; // exit 1: no file holds it
  }
}

describe('secrets and mem add, commit messages, MCP', () => {
  let root: string;

  beforeAll(async () => {
    root = await e2eRoot({}, 'memdir-e2e-secrets-');
  });

  afterAll(async () => {
    await disposeE2eRoot(root);
  });

  it('mem add refuses each common secret form (exit 2); neither the root nor git history holds it', async () => {
    expect((await runMem(['add', 'Ann likes short stand-ups', '--user', 'ann', '--json'], { root })).code).toBe(0);
    for (const [text, secret] of REFUSED) {
      const res = await runMem(['add', text, '--user', 'ann', '--json'], { root });
      expect(res.code, text).toBe(2);
      expect(res.json.error.message).toContain('looks like a secret');
      expect(res.stdout + res.stderr).not.toContain(secret);
    }
    for (const [, secret] of REFUSED) {
      expect(grepR(root, secret)).toBe('');
      expect(git(root, 'log', '-p', '--all')).not.toContain(secret);
    }
  });

  it('a reason given to forget reaches the commit message masked', async () => {
    const added = await runMem(['add', 'Ann rotates the staging credentials monthly', '--user', 'ann', '--json'], { root });
    expect(added.code).toBe(0);
    const done = await runMem(['forget', added.json.id, '--reason', `leaked with DB_PASSWORD=${DB_PASSWORD} in chat`, '--json'], { root });
    expect(done.code).toBe(0);
    const messages = git(root, 'log', '--format=%B');
    expect(messages).toContain('reason: leaked with DB_PASSWORD=');
    expect(messages).not.toContain(DB_PASSWORD);
  });

  it('MCP tools never show a stored secret to the model, and memory_add refuses one', async () => {
    const stored = await runMem(['add', `Ann's release job reads GITHUB_TOKEN=${GITHUB_HEX} from the vault`, '--user', 'ann', '--allow-secrets', '--json'], {
      root,
    });
    expect(stored.code).toBe(0);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MEM_BIN, '--root', root, 'mcp', '--user', 'ann'],
      env: cleanEnv() as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'memdir-secrets-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text?: string }[] };
        return { isError: Boolean(result.isError), text: result.content.map((c) => c.text ?? '').join('\n') };
      };
      const outputs = [
        await call('memory_search', { query: 'release job token' }),
        await call('memory_get', { id: stored.json.id }),
        await call('memory_list', {}),
      ];
      for (const out of outputs) {
        expect(out.isError).toBe(false);
        expect(out.text).not.toContain(GITHUB_HEX);
      }
      expect(outputs[1]!.text).toContain("Ann's release job reads GITHUB_TOKEN=");
      const refused = await call('memory_add', { text: `Deploy with AWS_SECRET_ACCESS_KEY=${AWS_SECRET}` });
      expect(refused.isError).toBe(true);
      expect(refused.text).not.toContain(AWS_SECRET);
    } finally {
      await client.close();
    }
    expect(grepR(root, AWS_SECRET)).toBe('');
    const block = await runMem(['search', 'release job token', '--user', 'ann', '--format', 'context'], { root });
    expect(block.code).toBe(0);
    expect(block.stdout).toContain('release job');
    expect(block.stdout).not.toContain(GITHUB_HEX);
  });
});

describe('secrets and the agent hooks', () => {
  let home: string;
  let repo: string;
  let env: Record<string, string>;
  const memories = () => join(repo, 'memories');

  beforeAll(async () => {
    home = await tempRoot({}, 'memdir-e2e-secrets-home-');
    repo = await tempRoot({ 'README.md': '# shop\n' }, 'memdir-e2e-secrets-repo-');
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'init');
    env = {
      HOME: home,
      MEMDIR_HOME: loadConfig(process.env).runtimeHome,
      MEM_PERSONAL_ROOT: join(home, '.memdir'),
      MEM_USER: 'ann',
      MEM_HOOK_START_MS: '30000',
    };
  });

  afterAll(async () => {
    await disposeE2eRoot(memories(), home, repo);
  });

  const hook = (args: string[], payload: unknown, asArgument: boolean) =>
    new Promise<{ code: number; stdout: string }>((resolve) => {
      const json = JSON.stringify(payload);
      const child = spawn(process.execPath, [MEM_BIN, 'hook', ...args, ...(asArgument ? [json] : [])], { env: cleanEnv(env) });
      let stdout = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.on('close', (code) => resolve({ code: code ?? 1, stdout }));
      child.stdin.end(asArgument ? '' : json);
    });

  it('a captured turn is stored with its secrets redacted in place: not in the day log, the root or git', async () => {
    const notify = {
      type: 'agent-turn-complete',
      'thread-id': 'b5f3c2a1-0d9e-4c8b-a7f6-e5d4c3b2a190',
      'turn-id': '1',
      cwd: repo,
      'input-messages': [`Set AWS_SECRET_ACCESS_KEY=${AWS_SECRET} and DB_PASSWORD=${DB_PASSWORD} on the deploy box.`],
      'last-assistant-message': `Done. I tested it with Authorization: Bearer ${JWT} and the token ${NPM}.`,
    };
    expect((await hook(['codex', 'notify', '--user', 'ann'], notify, true)).code).toBe(0);
    const entry = await eventually(
      async () => {
        const log = await readFile(join(memories(), '.mem', 'hooks', 'log.jsonl'), 'utf8').catch(() => '');
        return log
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as HookLogEntry)
          .find((e) => e.event === 'notify');
      },
      'the capture of the notify turn',
      180_000,
      250,
    );
    expect(entry).toMatchObject({ ok: true });
    expect(entry.detail).toMatch(/captured 2 turns into ann\/episodic\/.*; 4 secret\(s\) redacted/);
    const day = git(memories(), 'ls-files', 'ann/episodic').trim();
    const text = await readFile(join(memories(), day), 'utf8');
    expect(text).toContain(
      'Set AWS_SECRET_ACCESS_KEY=[redacted AWS Secret Access Key: …(40 chars)] and DB_PASSWORD=[redacted password assignment: …(14 chars)]',
    );
    for (const secret of [AWS_SECRET, DB_PASSWORD, JWT, NPM]) {
      expect(grepR(memories(), secret)).toBe('');
      expect(git(memories(), 'log', '-p', '--all')).not.toContain(secret);
    }
  });

  it('the session-start context masks a secret written into a memory file by hand', async () => {
    await mkdir(join(memories(), 'ann', 'semantic'), { recursive: true });
    await writeFile(join(memories(), 'ann', 'semantic', 'deploy.md'), `The deploy box reads GITHUB_TOKEN=${GITHUB_HEX} from its environment.\n`);
    const run = await hook(
      ['claude-code', 'session-start', '--user', 'ann'],
      { session_id: 's1', hook_event_name: 'SessionStart', source: 'startup', cwd: repo },
      false,
    );
    expect(run.code).toBe(0);
    const context = (JSON.parse(run.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    expect(context).toContain('The deploy box reads GITHUB_TOKEN=');
    expect(context).not.toContain(GITHUB_HEX);
  });
});
