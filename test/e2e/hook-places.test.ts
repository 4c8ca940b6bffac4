// Where the agent hooks and `mem integrate` put memory: a project memory only inside an existing git work tree
// (elsewhere personal memory alone, nothing created where the hook points), found by git even when the
// repository's path holds a newline.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config.js';
import { eventually } from '../support/eventually.js';
import { hookLog } from '../support/hook-log.js';
import { MEM_BIN, cleanEnv, runMem } from '../support/harness.js';
import { tempRoot } from '../support/temp-root.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });

/** Runs a hook as an agent does (payload on stdin), from the folder `from`; resolves with its exit code and output. */
function hookRun(event: string, payload: unknown, env: Record<string, string>, from: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MEM_BIN, 'hook', 'claude-code', event, '--user', 'ann'], {
      cwd: from,
      env: cleanEnv(env),
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let stdout = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout }));
    child.stdin.end(JSON.stringify(payload));
  });
}

const hook = async (event: string, payload: unknown, env: Record<string, string>, from: string) => (await hookRun(event, payload, env, from)).code;

describe('where the agent hooks put memory', () => {
  let base: string;
  let personal: string;
  let scratch: string;
  let transcript: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    base = await tempRoot({}, 'memdir-e2e-places-');
    personal = join(base, 'home', '.memdir');
    scratch = join(base, 'scratch');
    await mkdir(scratch, { recursive: true });
    transcript = join(base, 'session.jsonl');
    const said = { type: 'user', message: { role: 'user', content: 'The kiwi service listens on port 7070.' }, timestamp: '2026-12-02T09:00:00.000Z' };
    await writeFile(transcript, `${JSON.stringify(said)}\n`);
    env = { HOME: join(base, 'home'), MEMDIR_HOME: loadConfig(process.env).runtimeHome, MEM_PERSONAL_ROOT: personal, MEM_USER: 'ann' };
  });

  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('a hook pointed at a folder that does not exist creates nothing there, and logs why in personal memory', async () => {
    const missing = join(base, 'nonexistent', 'dir');
    await mkdir(join(personal, 'ann', 'semantic'), { recursive: true });
    await writeFile(join(personal, 'ann', 'semantic', 'editor.md'), 'Ann writes her code in Helix.\n');
    // Session start there still sees personal memory, and only that.
    const start = await hookRun('session-start', { session_id: 'gone-1', cwd: missing }, env, scratch);
    expect(start.code).toBe(0);
    const context = (JSON.parse(start.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    expect(context).toContain('<memories user="ann" scope="personal">');
    expect(context).toContain('Ann writes her code in Helix.');
    expect(context).not.toContain('scope="project"');
    expect(await hook('stop', { session_id: 'gone-1', cwd: missing, transcript_path: transcript }, env, scratch)).toBe(0);
    const logged = await eventually(async () => (await hookLog(personal)).find((e) => e.event === 'stop'), 'the stop entry in personal memory', 60_000, 250);
    expect(logged.detail).toContain('not in a git work tree');
    expect(existsSync(join(base, 'nonexistent'))).toBe(false);
    expect(await readdir(scratch)).toEqual([]);
  });

  it('a Stop hook in a folder that is not a git work tree makes no memories/ there, no memories/.git', async () => {
    const plain = join(base, 'plain');
    await mkdir(plain);
    await writeFile(join(plain, 'notes.txt'), 'not a repository\n');
    expect(await hook('stop', { session_id: 'plain-1', cwd: plain, transcript_path: transcript }, env, scratch)).toBe(0);
    // Whichever place the hook logged to: personal memory (why it stored nothing) or a memories/ it made.
    const logged = await eventually(
      async () => [...(await hookLog(personal)), ...(await hookLog(join(plain, 'memories')))].find((e) => e.session === 'plain-1' && e.event === 'stop'),
      'the stop entry',
      180_000,
      250,
    );
    expect(logged.detail).toContain('not in a git work tree');
    expect(await readdir(plain)).toEqual(['notes.txt']);
  });

  it('the project MCP server a user-scope install starts in a folder outside git makes no memories/ there and says why', async () => {
    const plain = join(base, 'plain-mcp');
    await mkdir(plain);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MEM_BIN, 'mcp', '--project', '--user', 'ann'],
      cwd: plain,
      env: cleanEnv(env) as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'memdir-places-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const added = (await client.callTool({ name: 'memory_add', arguments: { text: 'The wren service listens on port 6060.' } })) as {
        isError?: boolean;
        content: { text?: string }[];
      };
      expect(added.isError).toBe(true);
      expect(added.content.map((c) => c.text ?? '').join('\n')).toContain('is not in a git work tree');
    } finally {
      await client.close();
    }
    expect(await readdir(plain)).toEqual([]);
  });

  it('a repository whose path holds a newline and ends in a space gets its memory inside itself, committed and purged there', async () => {
    const repo = join(base, 'two\nlines ');
    const root = join(repo, 'memories');
    await mkdir(repo);
    git(repo, 'init', '-q', '-b', 'main');
    await writeFile(join(repo, 'README.md'), '# two lines\n');
    git(repo, 'add', 'README.md');
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init');
    expect(await hook('session-start', { session_id: 'nl-1', cwd: repo }, env, scratch)).toBe(0);
    const entries = await hookLog(root);
    expect(entries.map((e) => e.event)).toEqual(['session-start']);
    expect(await readdir(scratch)).toEqual([]);
    try {
      const added = await runMem(['add', 'The heron service listens on port 9090.', '--user', 'ann', '--json'], { root, env });
      expect(added.code).toBe(0);
      expect(git(repo, 'log', '--format=%s')).toContain('memdir: ADD');
      const forgot = await runMem(['forget', added.json.id, '--user', 'ann', '--purge-history', '--rewrite-project-history', '--yes', '--json'], { root, env });
      expect(forgot.stdout + forgot.stderr).not.toContain('error');
      expect(forgot.code).toBe(0);
      expect(git(repo, 'log', '--all', '-p')).not.toContain('heron');
    } finally {
      await runMem(['server', 'stop'], { root, env });
    }
  });

  it('`mem integrate --dir` with a folder that does not exist is refused and creates nothing', async () => {
    const missing = join(base, 'no-such-project');
    const run = await runMem(['integrate', 'claude-code', '--scope', 'project', '--dir', missing], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(missing);
    expect(existsSync(missing)).toBe(false);
  });
});
