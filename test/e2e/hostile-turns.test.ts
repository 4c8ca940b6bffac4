// Captured text that looks like Markdown structure or git's conflict markers: the real Stop hook stores it, the
// day log stays committed and indexed, and the next turns of the session are captured after it.
import { execFileSync, spawn } from 'node:child_process';
import { appendFile, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config.js';
import { eventually } from '../support/eventually.js';
import { hookLog } from '../support/hook-log.js';
import { MEM_BIN, cleanEnv, runMem } from '../support/harness.js';
import { tempRoot } from '../support/temp-root.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });

/** One line of a Claude Code transcript. */
const line = (type: 'user' | 'assistant', text: string, minute: number) =>
  `${JSON.stringify({ type, message: { role: type, content: [{ type: 'text', text }] }, timestamp: `2026-12-01T10:${String(minute).padStart(2, '0')}:00.000Z` })}\n`;

// What a person pastes when asking for help with a merge, and what an agent answers with.
const CONFLICT = [
  'The build broke after the merge, this is in server.ts:',
  '<<<<<<< HEAD',
  'const port = 3000;',
  '=======',
  'const port = 8080;',
  '>>>>>>> feature',
  '---',
  'title: looks like front matter',
  '---',
  '# Not a heading of the log',
  'Underlined, like a heading',
  '===',
  '<!-- an HTML comment that never closes',
  '```',
  'a code fence that never closes',
].join('\n');

function stopHook(payload: unknown, env: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MEM_BIN, 'hook', 'claude-code', 'stop', '--user', 'ann'], {
      env: cleanEnv(env),
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    child.on('close', (code) => resolve(code ?? 1));
    child.stdin.end(JSON.stringify(payload));
  });
}

const stops = async (root: string) => (await hookLog(root)).filter((e) => e.event === 'stop');

describe('a captured turn holding conflict markers, fences and headings', () => {
  let home: string;
  let repo: string;
  let env: Record<string, string>;
  const root = () => join(repo, 'memories');

  beforeAll(async () => {
    home = await tempRoot({}, 'memdir-e2e-hostile-home-');
    repo = await tempRoot({ 'README.md': '# app\n' }, 'memdir-e2e-hostile-repo-');
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'init');
    env = { HOME: home, MEMDIR_HOME: loadConfig(process.env).runtimeHome, MEM_PERSONAL_ROOT: join(home, '.memdir'), MEM_USER: 'ann' };
  });

  afterAll(async () => {
    await runMem(['server', 'stop'], { root: root(), env });
    for (const dir of [repo, home]) await rm(dir, { recursive: true, force: true });
  });

  it('is stored, committed and indexed, and the later turns of the session are captured too', async () => {
    const transcript = join(home, 'session.jsonl');
    await writeFile(transcript, line('user', CONFLICT, 0) + line('assistant', 'Kept port 8080 from the feature branch in server.ts.', 1));
    const payload = { session_id: 'hostile-1', transcript_path: transcript, cwd: repo, hook_event_name: 'Stop' };
    expect(await stopHook(payload, env)).toBe(0);
    const first = await eventually(async () => (await stops(root()))[0], 'the first capture', 180_000, 250);
    expect({ ok: first.ok, error: first.error }).toEqual({ ok: true, error: undefined });
    expect(first.detail).toContain('captured 2 turns');

    await appendFile(
      transcript,
      line('user', 'Where does the quokka service deploy?', 5) + line('assistant', 'The quokka service deploys to the Lisbon cluster.', 6),
    );
    expect(await stopHook(payload, env)).toBe(0);
    const second = await eventually(async () => (await stops(root()))[1], 'the second capture', 180_000, 250);
    expect({ ok: second.ok, error: second.error }).toEqual({ ok: true, error: undefined });
    expect(second.detail).toContain('captured 2 turns');

    // Committed: nothing left over in the work tree.
    expect(git(repo, 'status', '--porcelain', '--', 'memories')).toBe('');
    // One day log, holding both sessions' words as they were said (escaped only where Markdown would read structure).
    const days = await readdir(join(root(), 'ann', 'episodic'));
    expect(days).toEqual(['2026-12-01.md']);
    const log = await readFile(join(root(), 'ann', 'episodic', days[0]!), 'utf8');
    expect(log).toContain('const port = 3000;\n\\=======\nconst port = 8080;\n\\>>>>>>> feature');
    expect(log).toContain('The quokka service deploys to the Lisbon cluster.');
    expect(log.match(/^#{1,6} /gm)).toEqual(['# ', '## ', '## ']); // the log's own title and its two sessions

    // Indexed: `mem doctor` finds no broken file, search finds both captures.
    const doctor = await runMem(['doctor', '--json'], { root: root(), env });
    expect(JSON.stringify(doctor.json)).not.toContain('conflict');
    const port = await runMem(['search', 'which port did the feature branch use', '--user', 'ann', '--json'], { root: root(), env });
    expect(port.code).toBe(0);
    expect(JSON.stringify(port.json)).toContain('const port = 8080;');
    const quokka = await runMem(['search', 'quokka service deploy cluster', '--user', 'ann', '--json'], { root: root(), env });
    expect(quokka.code).toBe(0);
    expect(JSON.stringify(quokka.json)).toContain('Lisbon cluster');
  });
});
