// Covers the vector cache shared by processes of one root (a `mem add` and a `mem watch`): two writer processes
// and removals (each a rewrite into a new generation) in this one, all at once; no write is lost, no removal undone.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, describe, expect, it } from 'vitest';

import { LmdbVectorCache } from '../../src/adapters/state/lmdb-vector-cache.js';
import { sha256 } from '../../src/memory/hash.js';

// The built adapter (e2e tests run dist/ too: `npm run build` first).
const ADAPTER = fileURLToPath(new URL('../../dist/adapters/state/lmdb-vector-cache.js', import.meta.url));
const DIM = 16;

const vectorOf = (name: string) => Array.from({ length: DIM }, (_, j) => (Number.parseInt(sha256(name).slice(j * 2, j * 2 + 2), 16) - 128) / 128);

/** A process that writes `count` vectors named `<name> <i>`, in batches of 50. */
function writer(dir: string, name: string, count: number): Promise<void> {
  const script = `
    import { createHash } from 'node:crypto';
    const { LmdbVectorCache } = await import(${JSON.stringify(ADAPTER)});
    const sha = (s) => createHash('sha256').update(s).digest('hex');
    const vec = (s) => Array.from({ length: ${DIM} }, (_, j) => (Number.parseInt(sha(s).slice(j * 2, j * 2 + 2), 16) - 128) / 128);
    const cache = new LmdbVectorCache(${JSON.stringify(dir)}, 'model');
    for (let i = 0; i < ${count}; i += 50) {
      const batch = new Map();
      for (let j = i; j < Math.min(i + 50, ${count}); j++) batch.set(sha(${JSON.stringify(name)} + ' ' + j), vec(${JSON.stringify(name)} + ' ' + j));
      await cache.putMany(batch);
    }
    await cache.close();
  `;
  return new Promise((done, fail) =>
    execFile(process.execPath, ['--input-type=module', '-e', script], (err, _out, stderr) =>
      err ? fail(new Error(`${name}: ${stderr || err.message}`)) : done(),
    ),
  );
}

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('vector cache shared by processes', () => {
  it('two writer processes and removals in a third at once: every write kept, every removal holds', async () => {
    const root = await mkdtemp(join(tmpdir(), 'memdir-vcache-procs-'));
    dirs.push(root);
    const dir = join(root, '.mem');
    const cache = new LmdbVectorCache(dir, 'model');
    const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix} ${i}`);
    const own = names('own', 300);
    await cache.putMany(new Map(own.map((n) => [sha256(n), vectorOf(n)])));

    let writing = true;
    const writers = Promise.all([writer(dir, 'first', 1000), writer(dir, 'second', 1000)]).finally(() => (writing = false));
    // Rewrites for as long as the writers run (5 vectors each time, at most 50 times).
    let rounds = 0;
    while (writing && rounds < 50) {
      await cache.removeMany(own.slice(rounds * 5, rounds * 5 + 5).map(sha256));
      rounds++;
    }
    await writers;
    expect(rounds).toBeGreaterThan(1);

    const written = [...names('first', 1000), ...names('second', 1000)];
    const found = await cache.getMany(written.map(sha256));
    expect(found.size).toBe(2000);
    for (const n of [written[0]!, written[1999]!]) expect(found.get(sha256(n))).toEqual(Array.from(new Float32Array(vectorOf(n))));
    expect((await cache.getMany(own.slice(0, rounds * 5).map(sha256))).size).toBe(0);
    expect((await cache.getMany(own.slice(rounds * 5).map(sha256))).size).toBe(300 - rounds * 5);
    // One generation left; the replaced ones are gone.
    expect((await readdir(join(dir, 'vectors'))).filter((n) => n.endsWith('.mdb'))).toHaveLength(1);
    await cache.close();
  });
});
