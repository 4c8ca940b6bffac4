// Covers the chunk-list store on a real LMDB file: lists round trip, and the store keeps one memory map however
// large it grows (earlier maps kept resident memory of their own: docs/benchmarks.md 27).
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { LmdbChunkLists } from '../../../../src/adapters/state/lmdb-chunk-lists.js';
import type { ChunkList } from '../../../../src/services/ports.js';

const dirs: string[] = [];
const stores: LmdbChunkLists[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function storeAt(): Promise<{ store: LmdbChunkLists; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'memdir-chunks-'));
  dirs.push(dir);
  const file = join(dir, '.mem', 'manifest-x.json.chunks');
  const store = new LmdbChunkLists(join(dir, '.mem'), file);
  stores.push(store);
  return { store, file };
}

const hex = (s: string, chars: number) => createHash('sha256').update(s).digest('hex').slice(0, chars);

/** `n` lists of 1-8 chunks each, as a sync puts them (ids 32 hex characters, hashes 64). */
function lists(n: number, from = 0): ChunkList[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    const chunks = Array.from({ length: 1 + (i % 8) }, (_, j) => ({ id: hex(`id ${i} ${j}`, 32), textHash: hex(`text ${i} ${j}`, 64) }));
    return { path: `user/${i}.md`, sha: hex(`file ${i}`, 64), chunks };
  });
}

/** The mappings of `file` in this process. */
async function mappingsOf(file: string): Promise<number> {
  const maps = await readFile('/proc/self/maps', 'utf8');
  return maps.split('\n').filter((line) => line.endsWith(` ${file}`)).length;
}

describe('LmdbChunkLists', () => {
  it('returns the lists put, by path, and nothing for paths never put', async () => {
    const { store } = await storeAt();
    const written = lists(50);
    await store.put(written);
    const read = await store.get([...written.map((l) => l.path), 'user/none.md']);
    expect(read.size).toBe(50);
    for (const l of written) expect(read.get(l.path)).toEqual({ sha: l.sha, chunks: l.chunks });
  });

  it('keeps one memory map while the store grows from nothing to megabytes, as a full index grows it', async () => {
    const { store, file } = await storeAt();
    // 4,000 lists in twenty puts: ~2 MB of store, where lmdb's own map started at 128 KiB and doubled four times.
    for (let i = 0; i < 4_000; i += 200) await store.put(lists(200, i));
    expect((await readFile(file)).length).toBeGreaterThan(1024 * 1024);
    expect(await mappingsOf(file)).toBe(1);
    expect((await store.get(['user/3999.md'])).get('user/3999.md')?.chunks.length).toBe(8);
  }, 30_000);
});
