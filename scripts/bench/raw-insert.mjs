// The engine's own pace, for comparison: the same chunk rows bulk-inserted straight into the same Milvus Lite
// server (a collection of its own, memdir's schema), with no memdir work around it. Measured by `npm run bench`
// (scripts/bench/run.mjs step 2b: the full index's share of this rate); not run on its own.
import { performance } from 'node:perf_hooks';

import { loadConfig } from 'memdir';
import { LOCAL_EMBEDDING, MilvusIndex, ensureRuntime, ensureServer, milvusLiteSpec, serverLayout } from '../../dist/internal.js';

import { prng } from './corpus.mjs';
import { round } from './stats.mjs';

// Rows per insert request: as many as memdir's own index adapter sends at most (UPSERT_BATCH in milvus-index.ts).
const BATCH = 500;
const COLLECTION = 'memdir_raw_insert_bench';

/**
 * Inserts every chunk row of `chunked` (chunkTexts' output) with random unit vectors in batches of 500, flushes,
 * and drops the collection again. `env` is the memdir processes' environment: the same shared Milvus Lite server
 * (its MEMDIR_SERVER_HOME) is used, started if it is not running.
 */
export async function rawInsertRate(root, chunked, env = process.env) {
  const config = loadConfig(env, { root });
  const runtime = await ensureRuntime({ home: config.runtimeHome, python: config.python, onLog: () => {} });
  const server = await ensureServer(milvusLiteSpec(runtime, serverLayout(config.serverHome), config.serverIdleMs));
  const index = new MilvusIndex({ address: `127.0.0.1:${server.port}`, token: server.secret, collection: COLLECTION });
  const rand = prng(11).next;
  const unit = () => {
    const v = Array.from({ length: LOCAL_EMBEDDING.dimension }, () => rand() - 0.5);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
  const records = chunked.flatMap((f) => f.records);
  try {
    await index.drop();
    await index.open(LOCAL_EMBEDDING);
    // Only the insert calls and the flush are timed: vectors are drawn in between (memdir reads them from its cache).
    let insertMs = 0;
    for (let i = 0; i < records.length; i += BATCH) {
      const batch = records.slice(i, i + BATCH).map((r) => ({ ...r, vector: unit() }));
      const t = performance.now();
      await index.insert(batch);
      insertMs += performance.now() - t;
    }
    const t = performance.now();
    await index.flush();
    const insertSec = insertMs / 1000;
    const seconds = insertSec + (performance.now() - t) / 1000;
    return {
      rows: records.length,
      batchSize: BATCH,
      insertSeconds: round(insertSec, 2),
      flushSeconds: round(seconds - insertSec, 2),
      seconds: round(seconds, 2),
      rowsPerSecond: round(records.length / seconds, 1),
    };
  } finally {
    await index.drop().catch(() => undefined);
    await index.close();
  }
}
