// Covers the LMDB vector cache on real files: bulk round trip, removals that leave no byte of a removed vector
// under `.mem/`, and two users of one root at once.
import { copyFile, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { LmdbVectorCache } from '../../../../src/adapters/state/lmdb-vector-cache.js';
import { FileStateResidue } from '../../../../src/adapters/state/state-residue.js';
import { sha256 } from '../../../../src/memory/hash.js';

const DIM = 384;
const dirs: string[] = [];
const caches: LmdbVectorCache[] = [];
afterEach(async () => {
  await Promise.all(caches.splice(0).map((c) => c.close()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function stateDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'memdir-vcache-'));
  dirs.push(dir);
  return join(dir, '.mem');
}

function cacheAt(dir: string): LmdbVectorCache {
  const cache = new LmdbVectorCache(dir, 'model-a');
  caches.push(cache);
  return cache;
}

/** Pseudo-random vectors exact in float32 (multiples of 1/1024, no run of one found in another), keyed like the sync keys them. */
function vectors(n: number, seed = 0): Map<string, number[]> {
  let state = seed * 2654435761 + 12345;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return ((state >>> 8) % 2048) / 1024 - 1;
  };
  return new Map(Array.from({ length: n }, (_, i) => [sha256(`text ${seed} ${i}`), Array.from({ length: DIM }, next)]));
}

/** What forget's scan looks for: the first 16 floats of a vector. */
const needleOf = (v: number[]) => new Uint8Array(new Float32Array(v.slice(0, 16)).buffer);

describe('LmdbVectorCache', () => {
  it('writes and reads vectors in bulk; unknown hashes are absent', async () => {
    const cache = cacheAt(await stateDir());
    expect((await cache.getMany([sha256('x')])).size).toBe(0);
    const written = vectors(300);
    await cache.putMany(written);
    const hashes = [...written.keys()];
    const read = await cache.getMany([...hashes, sha256('never written')]);
    expect(read.size).toBe(300);
    for (const h of hashes) expect(read.get(h)).toEqual(written.get(h));
  });

  it('lets its memory map go after 64 reads (pages read count as resident memory) and reads on, also with calls at once', async () => {
    const dir = await stateDir();
    const cache = cacheAt(dir);
    const written = vectors(600);
    await cache.putMany(written);
    const hashes = [...written.keys()];
    const mapped = async () => (await readFile('/proc/self/maps', 'utf8')).includes(join(dir, 'vectors'));
    expect((await cache.getMany(hashes.slice(0, 50))).size).toBe(50);
    expect(await mapped()).toBe(true);
    // Twelve reads at once: the map goes only after the last of them, and every one finds its vectors.
    const reads = await Promise.all(Array.from({ length: 12 }, (_, i) => cache.getMany(hashes.slice(i * 50, (i + 1) * 50))));
    expect(reads.map((r) => r.size)).toEqual(Array.from({ length: 12 }, () => 50));
    expect(await mapped()).toBe(false);
    const again = await cache.getMany(hashes.slice(590));
    expect(again.get(hashes[595]!)).toEqual(written.get(hashes[595]!));
  });

  it('retain removes the vectors not kept, and no byte of them stays in any file under .mem/', async () => {
    const dir = await stateDir();
    const cache = cacheAt(dir);
    const written = vectors(400);
    await cache.putMany(written);
    const hashes = [...written.keys()];
    const kept = new Set(hashes.slice(0, 360));
    const removed = hashes.slice(360);

    expect(await cache.retain(kept)).toBe(40);
    const read = await cache.getMany(hashes);
    expect([...read.keys()].sort()).toEqual([...kept].sort());
    const scan = await new FileStateResidue(dir).scan(removed.map((h) => needleOf(written.get(h)!)));
    expect(scan.files).toBeGreaterThan(0);
    expect(scan.hits).toEqual([]);
    // The kept ones are still found by the same scan: it does look into the store.
    expect((await new FileStateResidue(dir).scan([needleOf(written.get(hashes[0]!)!)])).hits.length).toBe(1);
    expect(await cache.retain(kept)).toBe(0);
  });

  it('removeMany removes exactly those vectors, with no byte of them left', async () => {
    const dir = await stateDir();
    const cache = cacheAt(dir);
    const written = vectors(50);
    await cache.putMany(written);
    const [gone, ...rest] = [...written.keys()];
    await cache.removeMany([gone!]);
    expect((await cache.getMany([gone!])).size).toBe(0);
    expect((await cache.getMany(rest)).size).toBe(49);
    expect((await new FileStateResidue(dir).scan([needleOf(written.get(gone!)!)])).hits).toEqual([]);
  });

  it('a rewrite killed after its switch leaves the replaced generation: the next retain removes it, even with nothing to remove', async () => {
    const dir = await stateDir();
    const first = cacheAt(dir);
    const written = vectors(30);
    await first.putMany(written);
    await first.close();
    const store = join(dir, 'vectors');
    // The next generation in place and the temp file of another interrupted rewrite; the old generation still there.
    await copyFile(join(store, 'model-a.0.mdb'), join(store, 'model-a.1.mdb'));
    await writeFile(join(store, 'model-a.2.mdb.tmp'), 'partial');
    const cache = cacheAt(dir);
    expect(await cache.retain(new Set(written.keys()))).toBe(0);
    expect((await readdir(store)).filter((n) => !n.endsWith('-lock'))).toEqual(['model-a.1.mdb']);
    expect((await cache.getMany([...written.keys()])).size).toBe(30);
  });

  it('two users of one root (an add and a watch) see each other, across a rewrite by either', async () => {
    const dir = await stateDir();
    const a = cacheAt(dir);
    const b = cacheAt(dir);
    const first = vectors(100, 1);
    const second = vectors(100, 2);
    await Promise.all([a.putMany(first), b.putMany(second)]);
    expect((await a.getMany([...second.keys()])).size).toBe(100);
    // b rewrites the store while a holds the older generation open: a's next write and read use the new one.
    const keep = new Set([...first.keys()]);
    expect(await b.retain(keep)).toBe(100);
    const third = vectors(10, 3);
    await a.putMany(third);
    expect((await b.getMany([...third.keys()])).size).toBe(10);
    expect((await a.getMany([...second.keys()])).size).toBe(0);
    expect((await a.getMany([...first.keys()])).size).toBe(100);
    // One generation on disk: the replaced one is gone.
    expect((await readdir(join(dir, 'vectors'))).filter((n) => n.endsWith('.mdb'))).toHaveLength(1);
  });
});
