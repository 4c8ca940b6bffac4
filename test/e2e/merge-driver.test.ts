// Memory files merged by hand with real git (a bare remote, two clones, `git pull`, `git pull --rebase`,
// `git cherry-pick`, a branch merge in a project) and the real `bin/mem`, Milvus Lite and model: day logs are united,
// a memory corrected on both machines keeps both versions (the later at its path, the other superseded), a forget's
// deletion wins over an edit and any other deletion loses to it, and a file memdir cannot read gets git's conflict.
// After each: no conflict markers in any memory file, nothing lost, `mem doctor` clean.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { runMem } from '../support/harness.js';

const HOME = 'ann/semantic/home.md';
const DAY = 'ann/episodic/2026-12-01.md';

const memory = (id: string, updated: string, body: string, tags: string[]) =>
  `---\nid: ${id}\nuser: ann\ntype: semantic\ncreated: 2026-11-01T08:00:00.000Z\nupdated: ${updated}\ntags: [${tags.join(', ')}]\n---\n${body}\n`;

/** Every memory file under a folder (not .git/ or .mem/), relative paths. */
function memoryFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .filter((p) => !p.split('/').some((s) => s === '.git' || s === '.mem'));
}

/** Paths of memory files with a conflict marker line in them. */
const withMarkers = (dir: string) => memoryFiles(dir).filter((p) => /^(<{7}|={7}|>{7})( |$)/m.test(readFileSync(join(dir, p), 'utf8')));

describe('memory files merged by hand with git', () => {
  let base: string;
  let remote: string;
  let a: string;
  let b: string;
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8', stdio: 'pipe' });
  const tryGit = (cwd: string, ...args: string[]) => {
    try {
      return { code: 0, out: git(cwd, ...args) };
    } catch (err) {
      const e = err as { status: number; stdout: string; stderr: string };
      return { code: e.status, out: `${e.stdout}${e.stderr}` };
    }
  };
  const search = async (root: string, query: string, ...more: string[]) =>
    ((await runMem(['search', query, '-u', 'ann', '--json', ...more], { root })).json.results as { path: string; content: string; status?: string }[]) ?? [];
  const doctorClean = async (root: string) => {
    const doctor = await runMem(['doctor', '--json'], { root });
    expect(doctor.json.problems, doctor.stdout + doctor.stderr).toEqual([]);
    expect(doctor.code).toBe(0);
  };
  const ingest = async (root: string, time: string, text: string) => {
    const file = join(base, `talk-${time.replace(/\W/g, '')}.json`);
    await writeFile(
      file,
      JSON.stringify([
        { role: 'user', content: text, time },
        { role: 'assistant', content: 'Noted.', time },
      ]),
    );
    const r = await runMem(['ingest', file, '-u', 'ann', '--json'], { root });
    expect(r.code, r.stdout + r.stderr).toBe(0);
  };
  const edit = async (root: string, path: string, text: string, message: string) => {
    await writeFile(join(root, path), text);
    git(root, 'commit', '-qam', message);
  };

  beforeAll(async () => {
    base = await e2eRoot({}, 'memdir-e2e-merge-');
    remote = join(base, 'remote.git');
    a = join(base, 'a');
    git(base, 'init', '-q', '--bare', '-b', 'main', remote);
    git(base, 'clone', '-q', remote, a);
    for (const [path, text] of Object.entries({
      [HOME]: memory('home', '2026-11-01T08:00:00.000Z', 'Ann lives in Lyon.', ['home']),
      'ann/semantic/car.md': memory('car', '2026-11-01T08:00:00.000Z', 'Ann drives a red Zoe with plate ZX-481.', ['car']),
      'ann/semantic/tea.md': memory('tea', '2026-11-01T08:00:00.000Z', 'Ann drinks sencha in the morning.', ['tea']),
      'ann/semantic/bike.md': memory('bike', '2026-11-01T08:00:00.000Z', 'Ann rides a blue gravel bike.', ['bike']),
      'ann/semantic/notes.md': memory('notes', '2026-11-01T08:00:00.000Z', 'Ann keeps notes in a notebook.', ['notes']),
    })) {
      await mkdir(join(a, 'ann/semantic'), { recursive: true });
      await writeFile(join(a, path), text);
    }
    git(a, 'checkout', '-q', '-b', 'main');
    git(a, 'add', '-A');
    git(a, 'commit', '-qm', 'start');
    git(a, 'push', '-q', 'origin', 'main');
    b = join(base, 'b');
    git(base, 'clone', '-q', remote, b);
    // Any command that opens a root registers the driver in its clone.
    for (const root of [a, b]) expect((await runMem(['reindex', '--json'], { root })).code).toBe(0);
    expect(git(a, 'check-attr', 'merge', '--', HOME)).toContain('merge: memdir');
  });
  afterAll(async () => {
    await disposeE2eRoot(a, b, base);
  });

  /** B pushes, A pulls by hand (`how`), A's next command settles, A pushes, B pulls: both clones end alike. */
  const roundTrip = async (how: string[] = ['--no-rebase']) => {
    git(b, 'push', '-q', 'origin', 'main');
    const pull = tryGit(a, 'pull', '-q', ...how, 'origin', 'main');
    return pull;
  };
  const finish = async () => {
    // The next command commits what the driver kept and brings the index in step.
    expect((await runMem(['reindex', '--json'], { root: a })).code).toBe(0);
    git(a, 'push', '-q', 'origin', 'main');
    git(b, 'pull', '-q', '--no-rebase', 'origin', 'main');
    // On the other clone too: its next command (a search) indexes what the pull brought.
    await search(b, 'anything new');
    for (const root of [a, b]) {
      expect(withMarkers(root)).toEqual([]);
      expect(git(root, 'status', '--porcelain', '--', '*.md')).toBe('');
      await doctorClean(root);
    }
    expect(memoryFiles(a).sort()).toEqual(memoryFiles(b).sort());
  };

  it('unites the day logs both machines captured, in time order, each session once', async () => {
    await ingest(a, '2026-12-01T09:00:00Z', 'On the laptop Ann planned the garden shed.');
    await ingest(b, '2026-12-01T08:00:00Z', 'On the workstation Ann booked the ferry to Corsica.');
    await ingest(b, '2026-12-01T11:00:00Z', 'Later Ann ordered cedar boards for the shed.');
    const pull = await roundTrip();
    expect(pull.code, pull.out).toBe(0);
    const log = await readFile(join(a, DAY), 'utf8');
    const order = ['ferry to Corsica', 'garden shed', 'cedar boards'].map((t) => log.indexOf(t));
    expect(order.every((i) => i > 0)).toBe(true);
    expect(order).toEqual([...order].sort((x, y) => x - y));
    expect(log.split('booked the ferry').length).toBe(2);
    expect((await search(a, 'ferry to Corsica')).map((r) => r.path)).toContain(DAY);
    await finish();
  });

  it('keeps both corrections of one memory: the later at its path, the other superseded, tags united', async () => {
    await edit(a, HOME, memory('home', '2026-12-01T10:00:00.000Z', 'Ann lives in Paris.', ['home', 'paris']), 'paris');
    await edit(b, HOME, memory('home', '2026-12-02T10:00:00.000Z', 'Ann lives in Hamburg.', ['home', 'hamburg']), 'hamburg');
    const pull = await roundTrip();
    expect(pull.code, pull.out).toBe(0);
    const merged = await readFile(join(a, HOME), 'utf8');
    expect(merged).toContain('Hamburg');
    expect(merged).toMatch(/tags:\n {2}- home\n {2}- hamburg\n {2}- paris/);
    const kept = memoryFiles(a).filter((p) => /^ann\/semantic\/home\.[0-9a-f]{8}\.md$/.test(p));
    expect(kept).toHaveLength(1);
    expect(await readFile(join(a, kept[0]!), 'utf8')).toMatch(/status: superseded[\s\S]*superseded_by: home[\s\S]*Ann lives in Paris\./);
    await finish();
    const found = await search(a, 'which city does Ann live in');
    expect(found[0]?.content).toContain('Hamburg');
    expect(found.map((r) => r.content).join('\n')).not.toContain('Paris');
    const history = await search(a, 'which city does Ann live in', '--history');
    expect(history.find((r) => r.path === kept[0])?.content).toContain('Paris');
    expect(git(a, 'log', '-1', '--format=%B', '--', kept[0]!)).toContain('MERGE-KEPT');
  });

  it('lets a forget made on the other machine win over an edit made here', async () => {
    const forget = await runMem(['forget', 'car', '-u', 'ann', '--json'], { root: b });
    expect(forget.code, forget.stdout + forget.stderr).toBe(0);
    await edit(
      a,
      'ann/semantic/car.md',
      memory('car', '2026-12-03T08:00:00.000Z', 'Ann drives a red Zoe with plate ZX-481, now with winter tyres.', ['car']),
      'tyres',
    );
    const pull = await roundTrip();
    expect(pull.code).not.toBe(0); // git's modify/delete: no driver sees it
    const next = await runMem(['status', '--json'], { root: a });
    expect(next.stderr).toContain('mem resolve');
    const doctor = await runMem(['doctor', '--json'], { root: a });
    expect(doctor.json.problems).toContainEqual(expect.objectContaining({ kind: 'unmerged', path: 'ann/semantic/car.md' }));
    const resolve = await runMem(['resolve', '--json'], { root: a });
    expect(resolve.code, resolve.stdout + resolve.stderr).toBe(0);
    expect(resolve.json).toMatchObject({ operation: 'merge', settled: [{ path: 'ann/semantic/car.md', how: 'forgotten' }], left: [], next: 'git commit' });
    git(a, 'commit', '-q', '--no-edit');
    await finish();
    for (const root of [a, b]) {
      expect(memoryFiles(root)).not.toContain('ann/semantic/car.md');
      expect(memoryFiles(root).some((p) => readFileSync(join(root, p), 'utf8').includes('ZX-481'))).toBe(false);
    }
  });

  it('keeps an edit over a deletion that was not a forget, and says so', async () => {
    git(b, 'rm', '-q', 'ann/semantic/tea.md');
    git(b, 'commit', '-qm', 'tidy up old notes');
    await edit(a, 'ann/semantic/tea.md', memory('tea', '2026-12-04T08:00:00.000Z', 'Ann drinks sencha and, since December, genmaicha.', ['tea']), 'genmaicha');
    const pull = await roundTrip();
    expect(pull.code).not.toBe(0);
    const resolve = await runMem(['resolve', '--json'], { root: a });
    expect(resolve.json.settled).toEqual([
      expect.objectContaining({ path: 'ann/semantic/tea.md', how: 'change-kept', note: expect.stringContaining('tidy up old notes') }),
    ]);
    git(a, 'commit', '-q', '--no-edit');
    await finish();
    for (const root of [a, b]) expect(readFileSync(join(root, 'ann/semantic/tea.md'), 'utf8')).toContain('genmaicha');
  });

  it('merges the same way under git pull --rebase and git cherry-pick', async () => {
    await edit(a, 'ann/semantic/bike.md', memory('bike', '2026-12-05T08:00:00.000Z', 'Ann rides a green road bike.', ['bike', 'road']), 'road bike');
    await edit(b, 'ann/semantic/bike.md', memory('bike', '2026-12-05T09:00:00.000Z', 'Ann rides a black cargo bike.', ['bike', 'cargo']), 'cargo bike');
    const pull = await roundTrip(['--rebase']);
    expect(pull.code, pull.out).toBe(0);
    expect(await readFile(join(a, 'ann/semantic/bike.md'), 'utf8')).toMatch(/cargo bike[\s\S]*/);
    expect(memoryFiles(a).filter((p) => /^ann\/semantic\/bike\.[0-9a-f]{8}\.md$/.test(p))).toHaveLength(1);
    await finish();

    // A session captured on a side branch, picked onto main where the same day got another one.
    git(a, 'checkout', '-q', '-b', 'side');
    await ingest(a, '2026-12-01T15:00:00Z', 'On the side branch Ann sketched the shed roof.');
    git(a, 'checkout', '-q', 'main');
    await ingest(a, '2026-12-01T14:00:00Z', 'On main Ann called the carpenter.');
    const pick = tryGit(a, 'cherry-pick', 'side');
    expect(pick.code, pick.out).toBe(0);
    const log = await readFile(join(a, DAY), 'utf8');
    expect(log.indexOf('called the carpenter')).toBeLessThan(log.indexOf('sketched the shed roof'));
    expect(log.indexOf('garden shed')).toBeGreaterThan(0);
    await finish();
  });

  it('leaves a file it cannot read to git’s own conflict, and mem doctor names it', async () => {
    await writeFile(join(a, 'ann/semantic/notes.md'), '---\nid: notes\ntags: [notes\n---\nAnn keeps notes in a green notebook.\n');
    git(a, 'commit', '-qam', 'broken front matter');
    await edit(b, 'ann/semantic/notes.md', memory('notes', '2026-12-06T08:00:00.000Z', 'Ann keeps notes in an app.', ['notes']), 'app');
    const pull = await roundTrip();
    expect(pull.code).not.toBe(0);
    expect(withMarkers(a)).toEqual(['ann/semantic/notes.md']);
    const doctor = await runMem(['doctor', '--json'], { root: a });
    expect(doctor.code).toBe(1);
    expect(doctor.json.problems).toContainEqual(expect.objectContaining({ kind: 'invalid-file', path: 'ann/semantic/notes.md' }));
    expect(doctor.json.problems).toContainEqual(expect.objectContaining({ kind: 'unmerged', path: 'ann/semantic/notes.md' }));
    git(a, 'merge', '--abort');
  });
});

describe('a branch merge in a project where both branches captured memories', () => {
  let project: string;
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: project, encoding: 'utf8', stdio: 'pipe' });

  beforeAll(async () => {
    project = await e2eRoot({ 'src/main.c': 'int main(void) { return 0; }\n' }, 'memdir-e2e-merge-project-');
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-qm', 'code');
  });
  afterAll(async () => {
    await disposeE2eRoot(join(project, 'memories'), project);
  });

  it('unites the day log and indexes both branches’ sessions', async () => {
    const root = join(project, 'memories');
    const ingest = async (time: string, text: string) => {
      const file = join(project, '..', `${project.split('/').pop()}-${time.replace(/\W/g, '')}.json`);
      await writeFile(file, JSON.stringify([{ role: 'user', content: text, time }]));
      const r = await runMem(['ingest', file, '-u', 'dev', '--json'], { root });
      expect(r.code, r.stdout + r.stderr).toBe(0);
    };
    await ingest('2026-12-01T09:00:00Z', 'We chose SQLite for the cache layer.');
    git('checkout', '-q', '-b', 'feature');
    await ingest('2026-12-01T13:00:00Z', 'On the feature branch we renamed the parser module.');
    git('checkout', '-q', 'main');
    await ingest('2026-12-01T12:00:00Z', 'On main we fixed the flaky login test.');
    const merge = execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'merge', '--no-edit', 'feature'], {
      cwd: project,
      encoding: 'utf8',
      stdio: 'pipe',
    });
    expect(merge).toBeDefined();
    const log = await readFile(join(root, 'dev/episodic/2026-12-01.md'), 'utf8');
    const order = ['SQLite', 'flaky login', 'parser module'].map((t) => log.indexOf(t));
    expect(order.every((i) => i > 0)).toBe(true);
    expect(order).toEqual([...order].sort((x, y) => x - y));
    expect(withMarkers(root)).toEqual([]);
    const found = (await runMem(['search', 'renamed the parser module', '-u', 'dev', '--json'], { root })).json.results as { path: string }[];
    expect(found.map((r) => r.path)).toContain('dev/episodic/2026-12-01.md');
    const doctor = await runMem(['doctor', '--json'], { root });
    expect(doctor.json.problems).toEqual([]);
  });
});
