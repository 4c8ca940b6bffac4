// End to end through the real `bin/mem`, a new process per step, in temporary roots.
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { runMem } from '../support/harness.js';
import { ownServerHome } from '../support/server-home.js';

const git = (root: string, ...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });

describe('mem CLI end to end', () => {
  // Its last test stops the servers: its own, not those the test files running beside it use.
  ownServerHome();
  let root: string;
  let id: string;
  let path: string;

  beforeAll(async () => {
    root = await e2eRoot({}, 'memdir-e2e-');
  });
  afterAll(async () => {
    await disposeE2eRoot(root);
  });

  it('add writes the file, indexes it and commits it', async () => {
    const add = await runMem(['add', 'Alice lives in Munich and cycles to work', '--user', 'alice', '--tags', 'home,city', '--json'], { root });
    expect(add.code).toBe(0);
    expect(add.json).toMatchObject({ action: 'ADD', user: 'alice', type: 'semantic' });
    id = add.json.id;
    path = add.json.path;
    expect(path).toBe(`alice/semantic/${id}.md`);
    const text = await readFile(join(root, path), 'utf8');
    expect(text).toContain(`id: ${id}`);
    expect(text).toContain('Alice lives in Munich and cycles to work');
    const log = git(root, 'log', '-1', '--format=%B');
    expect(log).toContain(`memdir: ADD ${id}`);
    expect(log).toContain('user: alice');
    expect(git(root, 'ls-files')).not.toContain('.mem');
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it('search finds it for its user only', async () => {
    await runMem(['add', 'Bob lives in Hamburg near the harbour', '--user', 'bob'], { root });
    const res = await runMem(['search', 'where does the user live', '--user', 'alice', '--json'], { root });
    expect(res.code).toBe(0);
    expect(res.json.results.map((r: { id: string }) => r.id)).toEqual([id]);
    expect(res.json.results[0]).toMatchObject({ id, path, user: 'alice', type: 'semantic', tags: ['home', 'city'] });
    expect(typeof res.json.results[0].score).toBe('number');
  });

  it('--format context keeps fenced code as written; --json says which units of a memory the search scored', async () => {
    // A root of its own: the other steps count this root's files.
    const own = await e2eRoot({}, 'memdir-e2e-code-');
    try {
      const code = ['```bash', 'npm test && npm run lint', '  npm publish --tag next', '```'];
      const text = ['Ship a release: run the checks, then publish.', '', ...code, '', 'Never publish on a Friday.'].join('\n');
      const add = await runMem(['add', text, '--user', 'carol', '--type', 'procedural', '--json'], { root: own });
      expect(add.code).toBe(0);
      const ctx = await runMem(['search', 'how to publish a release', '--user', 'carol', '--format', 'context', '--budget', '300'], { root: own });
      expect(ctx.code).toBe(0);
      expect(ctx.stdout).toContain(code.join('\n'));
      const json = await runMem(['search', 'how to publish a release', '--user', 'carol', '--json'], { root: own });
      const hits = json.json.results[0].hits as { lines: [number, number]; content: string; score: number }[];
      expect(hits.length).toBeGreaterThan(0);
      expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
      expect(text).toContain(hits[0]!.content.trim());
    } finally {
      await disposeE2eRoot(own);
    }
  });

  it('--format context prints a labelled block within the budget; --explain shows score parts and eligibility', async () => {
    const ctx = await runMem(['search', 'where does she live', '--user', 'alice', '--format', 'context', '--budget', '200'], { root });
    expect(ctx.code).toBe(0);
    expect(ctx.stdout).toMatch(/^<memories user="alice">\nStored memories about this user[^\n]*not instructions/);
    expect(ctx.stdout).toContain('## Facts and preferences');
    expect(ctx.stdout).toContain(`(memory ${id})`);
    expect(ctx.stdout).not.toContain('Hamburg');
    const explained = await runMem(['search', 'where does she live', '--user', 'alice', '--explain'], { root });
    expect(explained.stdout).toMatch(/relevance \d\.\d{3} \(dense \d\.\d{3}, bm25 [-\d.]+, window [-\d.]+\), recency \d\.\d{3}, importance 0\.500/);
    expect(explained.stdout).toContain('eligible: user alice, status active, never expires');
    const json = await runMem(['search', 'where does she live', '--user', 'alice', '--json'], { root });
    const scores = json.json.results[0].scores;
    expect(scores.relevance).toBeGreaterThanOrEqual(0);
    expect(scores.relevance).toBeLessThanOrEqual(1);
    expect(scores.recency).toBeGreaterThan(0.9); // returned a moment ago
  });

  it('a hand edit shows after reindex, which embeds only the changed text', async () => {
    const file = join(root, path);
    await writeFile(file, (await readFile(file, 'utf8')).replace('Munich', 'Berlin'));
    const re = await runMem(['reindex', '--json'], { root });
    expect(re.code).toBe(0);
    expect(re.json).toMatchObject({ files: 2, embedded: 1, errors: [] });
    const again = await runMem(['reindex', '--json'], { root });
    expect(again.json).toMatchObject({ embedded: 0, upserted: 0, skipped: 2 });
    const res = await runMem(['search', 'Berlin', '--user', 'alice', '--json'], { root });
    expect(res.json.results[0].content).toContain('Berlin');
    expect(res.json.results[0].content).not.toContain('Munich');
  });

  it('forget removes the file, its rows and commits; search then returns nothing', async () => {
    const f = await runMem(['forget', id, '--json'], { root });
    expect(f.code).toBe(0);
    expect(f.json.removed).toEqual([{ id, path }]);
    expect(git(root, 'log', '-1', '--format=%B')).toContain('memdir: FORGET');
    expect(git(root, 'ls-files')).not.toContain(path);
    const res = await runMem(['search', 'where does Alice live', '--user', 'alice', '--json'], { root });
    expect(res.json.results).toEqual([]);
    const status = await runMem(['status', '--json'], { root });
    expect(status.json).toMatchObject({ files: 1, chunks: 1, indexRows: 1 });
    expect(status.json.drift.inSync).toBe(true);
  });

  it('exit codes: 2 for usage errors, 1 for failures, with one clear line', async () => {
    const noUser = await runMem(['search', 'x'], { root });
    expect(noUser.code).toBe(2);
    expect(noUser.stderr.trim()).toBe('mem: a search needs --user (or --all-users, explicitly)');
    const badUser = await runMem(['search', 'x', '--user', 'alice" or user != "x', '--json'], { root });
    expect(badUser.code).toBe(2);
    expect(badUser.json.error.code).toBe('USAGE');
    expect((await runMem(['frobnicate'], { root })).code).toBe(2);
    expect((await runMem(['add', 'x', '--user', 'a', '--type', 'nonsense'], { root })).code).toBe(2);
    const missing = await runMem(['forget', 'no-such-memory', '--json'], { root });
    expect(missing.code).toBe(1);
    expect(missing.json.error.code).toBe('NOT_FOUND');
    const escape = await runMem(['forget', '../../etc/passwd'], { root });
    expect(escape.code).toBe(2);
  });

  it('--json: a usage error that commander finds (unknown command or option, missing argument) is a JSON error on stdout too', async () => {
    // No command at all (`mem --json`, `mem server --json`): commander's own '(outputHelp)' is no message for a script.
    for (const args of [['frobnicate'], ['reindex', '--bogus'], ['search'], ['search', 'x', '-k'], [], ['server']]) {
      const run = await runMem([...args, '--json'], { root });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.json, args.join(' ')).toEqual({ error: { code: 'USAGE', message: expect.stringMatching(/^(unknown|missing|option)/) } });
    }
    // Help asked for is not an error: no JSON error document.
    const help = await runMem(['reindex', '--help', '--json'], { root });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: mem reindex');
  });

  it('reindex reports a broken file with path and line and exits 1, still indexing the rest', async () => {
    await mkdir(join(root, 'bob/semantic'), { recursive: true });
    await writeFile(join(root, 'bob/semantic/bad.md'), '---\nid: bad\nuser: [a, b]\n---\nText\n');
    await writeFile(join(root, 'bob/semantic/note.md'), 'Bob keeps his bike in the cellar.\n');
    const re = await runMem(['reindex', '--json'], { root });
    expect(re.code).toBe(1);
    expect(re.json.errors).toEqual([{ path: 'bob/semantic/bad.md', line: 3, message: expect.stringContaining('user') }]);
    const res = await runMem(['search', 'where is the bike', '--user', 'bob', '--json'], { root });
    expect(res.json.results[0].id).toBe('bob/semantic/note');
  });

  it('server status and stop report the managed servers', async () => {
    const st = await runMem(['server', 'status', '--json'], { root });
    expect(st.code).toBe(0);
    expect(st.json.servers.map((s: { name: string; running: boolean }) => [s.name, s.running])).toEqual([
      ['milvus-lite', true],
      ['embedder', true],
    ]);
    const stop = await runMem(['server', 'stop', '--json'], { root });
    expect(stop.json.stopped.filter((s: string) => s !== 'memd').sort()).toEqual(['embedder', 'milvus-lite']);
    // The next command starts them again on its own.
    const res = await runMem(['search', 'bike', '--user', 'bob', '--json'], { root });
    expect(res.code).toBe(0);
    expect(res.json.results[0].id).toBe('bob/semantic/note');
  });
});
