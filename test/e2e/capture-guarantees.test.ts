// What background capture promises, checked the way a user would: the hook input never shows in `ps`, a large
// input is captured whole, a turn is stored once per root however often a transcript repeats it, forgotten
// turns never come back (grep the bytes), an oversize day is split into committed, indexed files, and a
// failed capture is logged as failed and finished by the next hook.
import { execFileSync } from 'node:child_process';
import { readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config.js';
import type { HookLogEntry } from '../../src/services/ports.js';
import { hook, hookLog } from '../support/agent-hook.js';
import { eventually } from '../support/eventually.js';
import { MEM_BIN, runMem } from '../support/harness.js';
import { tempRoot } from '../support/temp-root.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });

/** One line of a Claude Code transcript. */
function line(session: string, uuid: string, type: 'user' | 'assistant', text: string, time: string, cwd = '/home/ann/shop'): string {
  const message = type === 'user' ? { role: 'user', content: text } : { role: 'assistant', content: [{ type: 'text', text }] };
  return JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    userType: 'external',
    cwd,
    sessionId: session,
    type,
    message,
    uuid,
    timestamp: time,
  });
}

/** Every Markdown file under the root (not `.mem/`), with its text. */
async function memoryFiles(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (dir: string, rel: string) => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      if (e.name === '.mem' || e.name === '.git') continue;
      if (e.isDirectory()) await walk(join(dir, e.name), `${rel}${e.name}/`);
      else out.set(`${rel}${e.name}`, await readFile(join(dir, e.name), 'utf8'));
    }
  };
  await walk(root, '');
  return out;
}

const count = (text: string, needle: string) => text.split(needle).length - 1;

/** The command lines of the running background capture workers. */
async function workerCommandLines(): Promise<string[]> {
  const out: string[] = [];
  for (const pid of (await readdir('/proc')).filter((p) => /^\d+$/.test(p))) {
    const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmd.includes(MEM_BIN) && cmd.includes('\0hook\0') && cmd.includes('--foreground')) out.push(cmd.replace(/\0/g, ' '));
  }
  return out;
}

describe('background capture', () => {
  /** Leaves a merge with a conflict in the project repository, for the person to finish. */
  async function conflictedMerge(branch: string): Promise<void> {
    git(project, 'checkout', '-q', '-b', branch);
    await writeFile(join(project, 'README.md'), `# shop (${branch})\n`);
    git(project, 'commit', '-q', '-am', branch);
    git(project, 'checkout', '-q', 'main');
    await writeFile(join(project, 'README.md'), `# shop (main before ${branch})\n`);
    git(project, 'commit', '-q', '-am', `main before ${branch}`);
    expect(() => git(project, 'merge', '-q', branch)).toThrow();
  }

  let home: string;
  let project: string;
  let elsewhere: string;
  let env: Record<string, string>;
  const root = () => join(project, 'memories');

  /** Runs a hook and waits for the outcome its detached worker logs (the next entry of that event). */
  async function capture(agent: string, event: string, payload: unknown, extraEnv: Record<string, string> = {}): Promise<HookLogEntry> {
    const before = (await hookLog(root())).filter((e) => e.event === event).length;
    const run = await hook([agent, event, '--user', 'ann'], payload, { ...env, ...extraEnv });
    expect(run.code).toBe(0);
    return eventually(async () => (await hookLog(root())).filter((e) => e.event === event)[before], `${agent} ${event} #${before + 1}`, 240_000, 250);
  }

  /** A Claude Code Stop hook on a transcript of these lines. */
  async function stop(session: string, lines: string[], extraEnv: Record<string, string> = {}): Promise<HookLogEntry> {
    const transcript = join(home, `${session}.jsonl`);
    await writeFile(transcript, `${lines.join('\n')}\n`);
    return capture('claude-code', 'stop', { session_id: session, transcript_path: transcript, cwd: project, hook_event_name: 'Stop' }, extraEnv);
  }

  beforeAll(async () => {
    home = await tempRoot({}, 'memdir-e2e-capture-home-');
    project = await tempRoot({ 'README.md': '# shop\n' }, 'memdir-e2e-capture-');
    git(project, 'init', '-q', '-b', 'main');
    git(project, 'add', 'README.md');
    git(project, 'commit', '-q', '-m', 'init');
    elsewhere = await tempRoot({ 'README.md': '# elsewhere\n' }, 'memdir-e2e-capture-elsewhere-');
    git(elsewhere, 'init', '-q', '-b', 'main');
    env = {
      HOME: home,
      MEMDIR_HOME: loadConfig(process.env).runtimeHome,
      MEM_PERSONAL_ROOT: join(home, '.memdir'),
      MEM_USER: 'ann',
    };
  });

  afterAll(async () => {
    await runMem(['server', 'stop'], { root: root(), env });
    for (const dir of [project, elsewhere, home]) await rm(dir, { recursive: true, force: true });
  });

  it('the worker gets the hook input through an owner-only file, not its command line', async () => {
    const marker = 'ps-visible-marker-7f3a91';
    const payload = {
      session_id: 'g-ps',
      cwd: project,
      hook_event_name: 'AfterAgent',
      timestamp: '2026-12-01T08:00:00.000Z',
      prompt: `Remember ${marker}`,
      prompt_response: 'Noted.',
    };
    const seen: string[] = [];
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        for (const cmd of await workerCommandLines()) if (!seen.includes(cmd)) seen.push(cmd);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const entry = await capture('gemini', 'after-agent', payload).finally(() => (watching = false));
    await watcher;
    expect(entry).toMatchObject({ ok: true });
    expect(seen.length).toBeGreaterThan(0);
    for (const cmd of seen) expect(cmd).not.toContain(marker);
    // Nothing of the input is left behind once it is captured.
    const inbox = join(root(), '.mem', 'hooks', 'inbox');
    expect(await readdir(inbox).catch(() => [])).toEqual([]);
  });

  it('a Gemini input over 128 KiB is captured whole', async () => {
    const marker = 'large-gemini-input-end-5c2e';
    // One paragraph repeated: the index embeds each distinct text once, so the test is about the hand-over.
    const paragraph = 'The build log follows, line after line of it. '.repeat(30).trim();
    const prompt = `${Array<string>(150).fill(paragraph).join('\n\n')}\n\n${marker}`;
    expect(Buffer.byteLength(prompt)).toBeGreaterThan(200 * 1024);
    const payload = {
      session_id: 'g-big',
      cwd: project,
      hook_event_name: 'AfterAgent',
      timestamp: '2026-12-01T09:00:00.000Z',
      prompt,
      prompt_response: 'Read it.',
    };
    const entry = await capture('gemini', 'after-agent', payload);
    expect(entry).toMatchObject({ ok: true });
    expect(entry.detail).toContain('captured 2 turns');
    const text = [...(await memoryFiles(root())).values()].join('\n');
    expect(count(text, marker)).toBe(1);
  });

  it('a resumed session (new id, old turns repeated) stores each turn once', async () => {
    const old = [
      line('s-old', 'u-1', 'user', 'We agreed the resume-marker-one service runs on port 8443.', '2026-12-02T10:00:00.000Z'),
      line('s-old', 'u-2', 'assistant', 'Noted: resume-marker-two, port 8443 it is.', '2026-12-02T10:00:05.000Z'),
    ];
    const first = await stop('s-old', old);
    expect(first, JSON.stringify(first)).toMatchObject({ ok: true, detail: expect.stringContaining('captured 2 turns') });
    // `claude --resume` writes a new session whose transcript repeats the old turns, then goes on.
    const resumed = [
      ...old.map((l) => l.replace(/s-old/g, 's-new')),
      line('s-new', 'u-3', 'user', 'And resume-marker-three: the health check is /livez.', '2026-12-02T10:05:00.000Z'),
    ];
    expect(await stop('s-new', resumed)).toMatchObject({ ok: true, detail: expect.stringContaining('captured 1 turns') });
    const text = [...(await memoryFiles(root())).values()].join('\n');
    for (const m of ['resume-marker-one', 'resume-marker-two', 'resume-marker-three']) expect(count(text, m)).toBe(1);
  });

  it('a forgotten day log is not captured again when a resumed session repeats its turns; the tombstone holds no text', async () => {
    const turns = [
      line('f-old', 'f-1', 'user', 'Private: my forgotten-marker-alpha diagnosis came back fine.', '2026-12-03T08:00:00.000Z'),
      line('f-old', 'f-2', 'assistant', 'Glad forgotten-marker-beta is good news.', '2026-12-03T08:00:04.000Z'),
    ];
    expect(await stop('f-old', turns)).toMatchObject({ ok: true });
    const day = await readFile(join(root(), 'ann', 'episodic', '2026-12-03.md'), 'utf8');
    const id = /^id: (.+)$/m.exec(day)![1]!;
    const forgot = await runMem(['forget', id, '--user', 'ann', '--json'], { root: root(), env });
    expect(forgot.code, forgot.stderr).toBe(0);
    expect(forgot.json.removed).toHaveLength(1);

    const resumed = turns.map((l) => l.replace(/f-old/g, 'f-new'));
    const entry = await stop('f-new', resumed);
    expect(entry).toMatchObject({ ok: true, detail: 'nothing new to capture' });
    const files = await memoryFiles(root());
    for (const [path, text] of files) {
      expect(text, path).not.toContain('forgotten-marker');
    }
    // The tombstone that stops it is committed, and holds hashes only.
    const tracked = git(project, 'ls-files', '--', 'memories');
    expect(tracked).toMatch(/memories\/\.forgotten\//);
    const log = git(project, 'log', '-p', '--all', '--', 'memories/.forgotten');
    expect(log).not.toContain('forgotten-marker');
  });

  it('a session that moved here from another repository captures here only the turns said here', async () => {
    const lines = [
      line('moved', 'x-1', 'user', 'In the other repository: elsewhere-marker-one.', '2026-12-07T08:00:00.000Z', elsewhere),
      line('moved', 'x-2', 'assistant', 'Noted, elsewhere-marker-two.', '2026-12-07T08:00:05.000Z', elsewhere),
      line('moved', 'x-3', 'user', 'Back in the shop: here-marker-three.', '2026-12-07T08:10:00.000Z', project),
    ];
    const entry = await stop('moved', lines);
    expect(entry, JSON.stringify(entry)).toMatchObject({ ok: true, detail: expect.stringContaining('captured 1 turns') });
    const text = [...(await memoryFiles(root())).values()].join('\n');
    expect(text).not.toContain('elsewhere-marker');
    expect(count(text, 'here-marker-three')).toBe(1);
  });

  // Over a megabyte parsed, chunked and indexed: about 90 s alone on a loaded 2-core machine, more beside other work.
  it('a day over the file size limit is split into several files, each committed and indexed', async () => {
    // 1.2 MB of turns, made of one repeated paragraph: the index embeds each distinct text once, so the test is
    // about the split, not about embedding a megabyte.
    const paragraph = 'The nightly build log repeats this paragraph to make a long day. '.repeat(21).trim();
    const turns = 12;
    const lines: string[] = [];
    for (let i = 0; i < turns; i++) {
      const text = [`oversize-turn-${i} `, ...Array<string>(75).fill(paragraph)].join('\n\n');
      lines.push(line('big', `b-${i}`, i % 2 ? 'assistant' : 'user', text, new Date(Date.UTC(2026, 11, 4, 9, 0, i * 10)).toISOString()));
    }
    lines.push(line('big', 'b-last', 'user', 'The closing remark names the zanzibar-lighthouse-ledger.', '2026-12-04T10:00:00.000Z'));
    const limit = { MEM_MAX_FILE_MB: '1' };
    const entry = await stop('big', lines, limit);
    expect(entry, JSON.stringify(entry)).toMatchObject({ ok: true });
    const days = (await readdir(join(root(), 'ann', 'episodic'))).filter((f) => f.startsWith('2026-12-04'));
    expect(days.length).toBeGreaterThan(1);
    for (const d of days) expect((await stat(join(root(), 'ann', 'episodic', d))).size).toBeLessThanOrEqual(1024 * 1024);
    const text = (await Promise.all(days.map((d) => readFile(join(root(), 'ann', 'episodic', d), 'utf8')))).join('\n');
    expect(Buffer.byteLength(text)).toBeGreaterThan(1024 * 1024);
    for (let i = 0; i < turns; i++) expect(count(text, `oversize-turn-${i} `)).toBe(1);
    expect(git(project, 'status', '--porcelain', '--', 'memories')).toBe('');
    const status = await runMem(['status', '--json'], { root: root(), env: { ...env, ...limit } });
    expect(status.json.drift).toMatchObject({ unindexed: [], invalid: [], inSync: true });
    const found = await runMem(['search', 'zanzibar lighthouse ledger', '--user', 'ann', '--json'], { root: root(), env: { ...env, ...limit } });
    expect(found.code, found.stderr).toBe(0);
    expect(JSON.stringify(found.json)).toContain('zanzibar-lighthouse-ledger');
  }, 300_000);

  it('a capture that fails (a git merge under way) is logged as failed; the next hook finishes it, committed', async () => {
    await conflictedMerge('other');

    const turns = [line('m-1', 'm-1', 'user', 'During the merge: merge-marker-gamma is the release name.', '2026-12-05T08:00:00.000Z')];
    const failed = await stop('m-1', turns);
    expect(failed).toMatchObject({ ok: false });
    expect(failed.error).toContain('merge is in progress');

    git(project, 'merge', '--abort');
    const retried = await stop('m-1', turns);
    expect(retried, JSON.stringify(retried)).toMatchObject({ ok: true, detail: expect.stringContaining('captured 1 turns') });
    expect(git(project, 'status', '--porcelain', '--', 'memories/ann/episodic')).toBe('');
    expect(git(project, 'show', 'HEAD:memories/ann/episodic/2026-12-05.md')).toContain('merge-marker-gamma');
  });
  it('a Gemini turn whose capture failed stays held (owner-only) and a later hook captures it', async () => {
    await conflictedMerge('third');
    const turn = (n: string, time: string) => ({
      session_id: 'g-retry',
      cwd: project,
      hook_event_name: 'AfterAgent',
      timestamp: time,
      prompt: `held-marker-${n}`,
      prompt_response: 'Ok.',
    });
    const inbox = join(root(), '.mem', 'hooks', 'inbox');
    const before = await readdir(inbox).catch(() => [] as string[]);
    const failed = await capture('gemini', 'after-agent', turn('one', '2026-12-06T08:00:00.000Z'));
    expect(failed).toMatchObject({ ok: false });
    const held = (await readdir(inbox)).filter((f) => !before.includes(f));
    expect(held).toHaveLength(1);
    expect((await stat(inbox)).mode & 0o777).toBe(0o700);
    expect((await stat(join(inbox, held[0]!))).mode & 0o777).toBe(0o600);

    git(project, 'merge', '--abort');
    // A minute later (the held file's age tells a failed capture from one still running).
    const past = new Date(Date.now() - 120_000);
    for (const f of await readdir(inbox)) await utimes(join(inbox, f), past, past);
    const next = await capture('gemini', 'after-agent', turn('two', '2026-12-06T09:00:00.000Z'));
    expect(next).toMatchObject({ ok: true });
    const retried = await eventually(
      async () => (await hookLog(root())).find((e) => e.agent === 'gemini' && e.detail?.startsWith('retried an earlier capture')),
      'the retry',
      180_000,
      250,
    );
    expect(retried).toMatchObject({ ok: true, agent: 'gemini', event: 'after-agent', detail: expect.stringContaining('captured 2 turns') });
    const day = await readFile(join(root(), 'ann', 'episodic', '2026-12-06.md'), 'utf8');
    expect(count(day, 'held-marker-one')).toBe(1);
    expect(count(day, 'held-marker-two')).toBe(1);
    expect(git(project, 'status', '--porcelain', '--', 'memories/ann/episodic')).toBe('');
    await eventually(async () => (await readdir(inbox)).length === 0, 'an empty inbox', 120_000, 250);
  });
});
