// Synthetic vectors for benchmarks of corpora too large to embed here: memdir's own chunk texts, and a seeded
// random unit vector for each, written where memdir's sync looks for cached vectors. A support module of
// run, forget and runtime (their --synthetic-vectors / --files modes): measures nothing itself.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { LmdbVectorCache, LOCAL_EMBEDDING, parseMemory, sha256, stateLayout, toChunkRecords } from '../../dist/internal.js';

import { prng } from './corpus.mjs';
import { round } from './stats.mjs';

/** The texts memdir embeds for the corpus, computed with memdir's own (built) parser and chunker. */
export async function chunkTexts(root, files) {
  const out = [];
  for (const f of files) {
    const doc = parseMemory(await readFile(join(root, f.path), 'utf8'), { path: f.path, defaultUser: 'default', fallbackTime: new Date().toISOString() });
    out.push({ path: f.path, records: toChunkRecords(doc, { maxChars: 1500 }) });
  }
  return out;
}

/** Random unit vectors (seeded) for every chunk text, written where memdir's sync looks for cached vectors. */
export async function fillCacheWithRandomVectors(root, chunked) {
  // The same cache key as the composition root (src/open-memory.ts) derives for the local model.
  // LmdbVectorCache takes the state folder (the root's .mem/), not the root.
  const cache = new LmdbVectorCache(stateLayout(root).dir, sha256(`${LOCAL_EMBEDDING.name}@${LOCAL_EMBEDDING.dimension}`).slice(0, 16));
  const rand = prng(7).next;
  const t0 = performance.now();
  let batch = new Map();
  let n = 0;
  for (const hash of new Set(chunked.flatMap((f) => f.records.map((r) => r.textHash)))) {
    const v = Array.from({ length: LOCAL_EMBEDDING.dimension }, () => rand() - 0.5);
    const norm = Math.hypot(...v);
    batch.set(
      hash,
      v.map((x) => x / norm),
    );
    n++;
    if (batch.size >= 1000) {
      await cache.putMany(batch);
      batch = new Map();
    }
  }
  await cache.putMany(batch);
  await cache.close();
  return { vectors: n, seconds: round((performance.now() - t0) / 1000, 2) };
}
