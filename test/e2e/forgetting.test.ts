// Forgetting leaves no copy: byte scans of `.mem/` (vector cache, statistics, manifests, logs), of the whole data
// folder of the shared Milvus Lite (the index data: the root's collection and anything the server keeps beside it) and of
// every git object, after `mem forget`, after a hand deletion + `mem gc`, and after `mem watch` picks up a deletion;
// the commit is an audit record without the text; a history rewrite never reaches a project's files.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cachedVectors } from '../support/cached-vectors.js';
import { objectsHolding, stateHolding } from '../support/byte-scan.js';
import { eventually } from '../support/eventually.js';
import { runMem } from '../support/harness.js';
import { tempRoot } from '../support/temp-root.js';
import { spawnWatch } from '../support/watch-process.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });

/** The first 16 floats of every vector cached since `before`: what the memory's dense row holds. */
async function vectorsOf(root: string, before: Set<string>): Promise<Buffer[]> {
  return [...(await cachedVectors(root))].filter(([hash]) => !before.has(hash)).map(([, bytes]) => bytes.subarray(0, 64));
}

async function cachedHashes(root: string): Promise<Set<string>> {
  return new Set((await cachedVectors(root)).keys());
}

/** Adds a memory and returns it with the bytes a copy of it would be found by (its text and its vector). */
async function addSecretMemory(root: string, text: string) {
  const before = await cachedHashes(root);
  const added = await runMem(['add', text, '-u', 'alice', '--json'], { root });
  expect(added.json.action).toBe('ADD');
  const vectors = await vectorsOf(root, before);
  expect(vectors.length).toBe(1);
  return { id: added.json.id as string, path: added.json.path as string, needles: [Buffer.from(text), ...vectors] };
}

describe('forgetting leaves no copy', () => {
  let root: string;

  beforeAll(async () => {
    root = await tempRoot({}, 'memdir-forget-');
    await runMem(['add', 'Alice prefers window seats on long flights', '-u', 'alice'], { root });
  });
  afterAll(async () => {
    await runMem(['server', 'stop'], { root });
    await rm(root, { recursive: true, force: true });
  });

  it('mem forget: no byte of the text or its vector under .mem/, and the commit records who, why and how many only', async () => {
    const secret = await addSecretMemory(root, 'Alice keeps her spare key under the green flowerpot');
    // The scan can see it: the index data holds the text and the vector until forgotten.
    expect((await stateHolding(root, [secret.needles[0]!])).some((f) => f.startsWith('milvus/'))).toBe(true);
    expect((await stateHolding(root, [secret.needles[1]!])).some((f) => f.startsWith('milvus/'))).toBe(true);
    await runMem(['search', 'where is the spare key', '-u', 'alice'], { root }); // an access record to remove

    const done = await runMem(['forget', secret.id, '--reason', 'asked by Alice on 1 December', '--json'], { root });
    expect(done.json.error).toBeUndefined();
    expect(done.code).toBe(0);
    expect(done.json.removed).toEqual([{ id: secret.id, path: secret.path }]);
    expect(done.json.verified).toMatchObject({ indexRows: 0, index: 'rebuilt', stateHits: [] });
    expect(done.json.verified.stateFiles).toBeGreaterThan(5);
    expect(await stateHolding(root, secret.needles)).toEqual([]);
    expect(await stateHolding(root, [Buffer.from(secret.id), Buffer.from('flowerpot')])).toEqual([]);

    const message = git(root, 'log', '-1', '--format=%B');
    const author = git(root, 'log', '-1', '--format=%an <%ae>').trim();
    expect(message).toContain('action: FORGET');
    expect(message).toContain('count: 1');
    expect(message).toContain(`by: ${author}`);
    expect(message).toContain('reason: asked by Alice on 1 December');
    expect(done.json.audit).toEqual({ by: author, reason: 'asked by Alice on 1 December', count: 1 });
    for (const word of ['spare', 'key', 'flowerpot', secret.id]) expect(message).not.toContain(word);
    // The other memory is still found, from the rebuilt index.
    const left = await runMem(['search', 'seat preference', '-u', 'alice', '--json'], { root });
    expect(left.json.results.map((r: { content: string }) => r.content)).toEqual(['Alice prefers window seats on long flights']);
  });

  it('a hand deletion: the text stays in index storage after a sync, and mem gc purges it', async () => {
    const secret = await addSecretMemory(root, 'Alice hides her diary behind the blue encyclopedia');
    await unlink(join(root, secret.path));
    const synced = await runMem(['reindex', '--json'], { root });
    expect(synced.json.deleted).toBe(1);
    // A delete only marks the row: Milvus Lite keeps it in its segment files (this is what gc is for).
    expect((await stateHolding(root, secret.needles)).length).toBeGreaterThan(0);

    const gc = await runMem(['gc', '--json'], { root });
    expect(gc.code).toBe(0);
    expect(gc.json.purge).toMatchObject({ index: 'rebuilt', cachedVectorsRemoved: 1 });
    expect(await stateHolding(root, secret.needles)).toEqual([]);
    // Nothing left to purge: a second gc does not rebuild again.
    expect((await runMem(['gc', '--json'], { root })).json.purge).toMatchObject({ index: 'clean', cachedVectorsRemoved: 0 });
  });

  it('--purge-history: no git object holds the text afterwards (reflogs and packs included)', async () => {
    const secret = await addSecretMemory(root, 'Alice wrote her bank PIN on a yellow sticky note');
    // A rewrite needs a clean work tree: the hand deletion above is still uncommitted.
    const refused = await runMem(['forget', secret.id, '--purge-history', '--yes'], { root });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/1 tracked files .* have uncommitted changes/);
    git(root, 'add', '-A');
    git(root, '-c', 'user.name=Alice', '-c', 'user.email=alice@example.com', 'commit', '-q', '-m', 'remove a memory by hand');
    git(root, 'gc', '--quiet'); // into a pack, with reflog entries, as a long-used repository would be
    expect(objectsHolding(root, 'yellow sticky note')).toBeGreaterThan(0);

    const done = await runMem(['forget', secret.id, '--purge-history', '--yes', '--json'], { root });
    expect(done.json.error).toBeUndefined();
    expect(done.json.purged).toBe(true);
    expect(done.json.verified.gitHits).toBe(0);
    expect(done.json.verified.gitObjects).toBeGreaterThan(5);
    expect(objectsHolding(root, 'yellow sticky note')).toBe(0);
    expect(objectsHolding(root, secret.id)).toBe(0);
    expect(await stateHolding(root, secret.needles)).toEqual([]);
    expect(objectsHolding(root, 'Alice prefers window seats on long flights')).toBeGreaterThan(0);
  });
});

describe('a history rewrite never reaches beyond the memories', () => {
  let project: string;
  let root: string;

  beforeAll(async () => {
    project = await tempRoot({ 'README.md': '# The project\n', 'src/app.txt': 'the code\n' }, 'memdir-project-');
    root = join(project, 'memories');
    await mkdir(root);
    git(project, 'init', '-q', '-b', 'main');
    git(project, '-c', 'user.name=Dev', '-c', 'user.email=dev@example.com', 'add', '.');
    git(project, '-c', 'user.name=Dev', '-c', 'user.email=dev@example.com', 'commit', '-q', '-m', 'the project');
    git(project, 'branch', 'feature');
  });
  afterAll(async () => {
    await runMem(['server', 'stop'], { root });
    await rm(project, { recursive: true, force: true });
  });

  it('refuses inside a project repository, naming it and its branches, and changes nothing', async () => {
    const secret = await addSecretMemory(root, 'Alice parks her car on level minus three');
    const before = git(project, 'rev-parse', 'main', 'feature');
    const refused = await runMem(['forget', secret.id, '--purge-history', '--yes'], { root });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(project);
    expect(refused.stderr).toMatch(/branches: (feature, main|main, feature)/);
    expect(refused.stderr).toContain('--rewrite-project-history');
    // No word of a rewrite that did not happen.
    expect(refused.stderr).not.toMatch(/rewriting|rewritten/);
    // Nothing was forgotten or rewritten.
    expect(await readFile(join(root, secret.path), 'utf8')).toContain('level minus three');
    expect(git(project, 'rev-parse', 'main', 'feature')).toBe(before);
  });

  it('with --rewrite-project-history it removes only the memory from history; the project files stay', async () => {
    const id = JSON.parse((await runMem(['search', 'where does Alice park', '-u', 'alice', '--json'], { root })).stdout).results[0].id as string;
    const readme = await readFile(join(project, 'README.md'), 'utf8');
    const done = await runMem(['forget', id, '--purge-history', '--rewrite-project-history', '--yes', '--json'], { root });
    expect(done.json.error).toBeUndefined();
    expect(done.json.verified.gitHits).toBe(0);
    expect(done.stderr).toContain('git history of every branch rewritten');
    expect(objectsHolding(project, 'level minus three')).toBe(0);
    expect(await readFile(join(project, 'README.md'), 'utf8')).toBe(readme);
    expect(git(project, 'show', 'main:README.md')).toBe(readme);
    expect(git(project, 'show', 'feature:src/app.txt')).toBe('the code\n');
    expect(git(project, 'status', '--porcelain')).toBe('');
  });
});

describe('mem watch purges a deletion', () => {
  let root: string;
  let watcher: ChildProcess;
  let lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    root = await tempRoot({}, 'memdir-forget-watch-');
  });
  afterAll(async () => {
    if (watcher && watcher.exitCode === null) watcher.kill('SIGKILL');
    await runMem(['server', 'stop'], { root });
    await rm(root, { recursive: true, force: true });
  });

  it('after mem watch picks up a deleted file, no byte of its text or vector is under .mem/', async () => {
    await runMem(['add', 'Alice takes the 7:40 train to work', '-u', 'alice'], { root });
    const secret = await addSecretMemory(root, 'Alice stores her passport in the freezer');
    const watch = spawnWatch(root, ['--debounce', '50', '--purge-delay', '500']);
    ({ watcher, lines } = watch);
    await eventually(async () => lines.some((l) => l.initial === true), 'the initial sync', 240_000, 250);
    expect((await stateHolding(root, secret.needles)).length).toBeGreaterThan(0);

    await unlink(join(root, secret.path));
    const synced = await eventually(
      async () => lines.find((l) => Array.isArray(l.paths) && (l.paths as string[]).includes(secret.path)),
      'the deletion',
      120_000,
    );
    expect(synced).toMatchObject({ event: 'sync', deleted: 1 });
    // Once edits pause (--purge-delay), the watch purges what the sync only marked deleted.
    const purged = await eventually(async () => lines.find((l) => l.event === 'purge'), 'the purge', 120_000);
    expect(purged).toMatchObject({ index: 'rebuilt', cachedVectorsRemoved: 1 });
    expect(lines.indexOf(purged)).toBeGreaterThan(lines.indexOf(synced));
    expect(await stateHolding(root, secret.needles)).toEqual([]);
    watcher.kill('SIGINT');
    await eventually(async () => watcher.exitCode !== null, 'the watch to stop');
    expect(watcher.exitCode).toBe(0);
  });
});
