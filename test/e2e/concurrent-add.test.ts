// Ten `mem add` processes started at once on a fresh root (servers not yet running): every memory is written,
// indexed and committed exactly once, and git, the files and the index agree afterwards.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config.js';
import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { cleanEnv, runMem } from '../support/harness.js';
import { expectedChunks, indexedChunks } from '../support/index-truth.js';

const git = (root: string, ...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
const HOBBIES = ['sailing', 'chess', 'pottery', 'astronomy', 'baking', 'climbing', 'violin', 'gardening', 'fencing', 'origami'];

describe('ten mem add processes at once', () => {
  let root: string;

  beforeAll(async () => {
    root = await e2eRoot({}, 'memdir-e2e-concurrent-');
  });
  afterAll(async () => {
    await disposeE2eRoot(root);
  });

  it('writes, indexes and commits every memory exactly once', async () => {
    const adds = await Promise.all(
      HOBBIES.map((hobby, i) => runMem(['add', `User ${i % 3} took up ${hobby} this year`, '--user', `u${i % 3}`, '--tags', hobby, '--json'], { root })),
    );
    for (const add of adds) expect(add.code, add.stdout + add.stderr).toBe(0);
    const paths = adds.map((a) => a.json.path as string);
    expect(new Set(adds.map((a) => a.json.id)).size).toBe(10);
    for (const [i, path] of paths.entries()) expect(await readFile(join(root, path), 'utf8')).toContain(`took up ${HOBBIES[i]} this year`);

    // Git: ten commits, one file each, all ten files, a sound repository and a clean tree.
    expect(git(root, 'rev-list', '--count', 'HEAD').trim()).toBe('10');
    const perCommit = git(root, 'log', '--pretty=format:@@', '--name-only')
      .split('@@')
      .map((c) => c.trim())
      .filter(Boolean);
    expect(perCommit).toHaveLength(10);
    expect(perCommit.every((files) => files.split('\n').length === 1)).toBe(true);
    expect(perCommit.sort()).toEqual([...paths].sort());
    expect(git(root, 'ls-files').trim().split('\n').sort()).toEqual([...paths].sort());
    git(root, 'fsck', '--full', '--strict'); // throws on any error
    expect(git(root, 'status', '--porcelain')).toBe('');

    // Index: exactly the rows the files call for, one per memory; status and doctor agree.
    const config = loadConfig(cleanEnv(), { root });
    const expected = await expectedChunks(config);
    expect(expected.size).toBe(10);
    expect([...(await indexedChunks(root)).entries()].sort()).toEqual([...expected.entries()].sort());
    const status = await runMem(['status', '--json'], { root });
    expect(status.json).toMatchObject({ files: 10, chunks: 10, indexRows: 10, drift: { inSync: true } });
    const doctor = await runMem(['doctor', '--json'], { root });
    expect(doctor.code).toBe(0);
    expect(doctor.json.ok).toBe(true);
    const hit = await runMem(['search', 'which hobby did they take up', '--user', 'u1', '--tags', 'chess', '--json'], { root });
    expect(hit.json.results.map((r: { id: string }) => r.id)).toEqual([adds[1]!.json.id]);
  });
});
