// Benchmark of warm, server-side search latency at scale: synthetic chunk rows straight into Milvus Lite, memdir's real searchMemories in one long-lived process.
//
// Usage: node scripts/bench/scale.mjs [--chunks 10000] [--users 10] [--queries 100] [--json] [--keep]
//        (or `npm run bench:scale`).
//        Needs a build (`npx tsc -p tsconfig.json`) and the embedded runtime (`mem setup` provisions it).
//
// Embedding 10,000 real chunks with the local model takes too long on a small machine, so the index
// rows are synthetic: chunk texts come from the benchmark corpus (scripts/bench/corpus.mjs, cut by
// memdir's own parser and chunker), users/status/expiry are reassigned, and the vectors are random
// 384-dimensional unit vectors. Queries are real: embedded by the local embedding server through
// memdir's OpenAIEmbedder, then searched with memdir's searchMemories (hybrid, k 8, rescoring and
// access statistics on), exactly the code path of `mem search`, minus the process start.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { loadConfig } from 'memdir';
import {
  DEFAULT_FUSION,
  DEFAULT_SCORING,
  FileLock,
  LmdbVectorCache,
  FsMemoryFiles,
  GitAudit,
  JsonAccessStats,
  LOCAL_EMBEDDING,
  MilvusIndex,
  NO_EXPIRY,
  OpenAIEmbedder,
  eligibilityScope,
  embeddingServerSpec,
  ensureRuntime,
  ensureServer,
  milvusLiteSpec,
  parseMemory,
  searchMemories,
  serverLayout,
  stopServer,
  toChunkRecords,
} from '../../dist/internal.js';

import { QUERIES, USERS, generateCorpus, prng } from './corpus.mjs';
import { machine, round, stats } from './stats.mjs';

const UPSERT_BATCH = 1000;
const WARMUP = 5;
const K = 8; // searchMemories' default k
const DAY = 86_400_000;

const { values: args } = parseArgs({
  options: {
    chunks: { type: 'string', default: '10000' },
    users: { type: 'string', default: '10' },
    queries: { type: 'string', default: '100' },
    json: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    // Share of the context-window signal (0: units only, no window searches); default: memdir's.
    windows: { type: 'string' },
  },
});
const WINDOWS = args.windows === undefined ? {} : { windows: Number(args.windows) };
const CHUNKS = Number(args.chunks);
const USER_COUNT = Number(args.users);
const QUERY_COUNT = Number(args.queries);
if (!Number.isInteger(CHUNKS) || CHUNKS < 100) throw new Error('--chunks must be a whole number >= 100');
if (!Number.isInteger(USER_COUNT) || USER_COUNT < 1 || USER_COUNT > 1000) throw new Error('--users must be a whole number from 1 to 1000');
if (!Number.isInteger(QUERY_COUNT) || QUERY_COUNT < 1) throw new Error('--queries must be a whole number >= 1');

const log = (msg) => process.stderr.write(`[scale] ${msg}\n`);

// ---- statistics ---------------------------------------------------------------------------------

// ---- synthetic index rows -----------------------------------------------------------------------
function userList(n) {
  if (n <= USERS.length) return USERS.slice(0, n);
  return Array.from({ length: n }, (_, i) => `user-${String(i).padStart(4, '0')}`);
}

/** Lifecycle of one memory: mostly active and never expiring; some superseded, expired, or past their expiry date. */
function lifecycle(r, now) {
  const x = r.next();
  if (x < 0.77) return { status: 'active', expires: undefined, kind: 'active' };
  if (x < 0.82) return { status: 'active', expires: now + r.int(1, 365) * DAY, kind: 'active, expires later' };
  if (x < 0.87) return { status: 'active', expires: now - r.int(1, 365) * DAY, kind: 'active, past expiry' };
  if (x < 0.94) return { status: 'superseded', expires: undefined, kind: 'superseded' };
  if (x < 0.98) return { status: 'expired', expires: now - r.int(1, 90) * DAY, kind: 'expired' };
  return { status: 'consolidated', expires: undefined, kind: 'consolidated' };
}

/** Chunk records (no vectors yet) from the corpus generator's files, through memdir's parser and chunker. */
async function chunkRecords(root, count, users, now) {
  // Every file yields at least one chunk, so `count` files are always enough; the generator is
  // deterministic and prefix-stable, so the rows are the same for the same --chunks.
  const { files } = await generateCorpus(root, count);
  const r = prng(4242);
  const records = [];
  const kinds = {};
  let memories = 0;
  for (const f of files) {
    if (records.length >= count) break;
    const doc = parseMemory(await readFile(join(root, f.path), 'utf8'), { path: f.path, defaultUser: 'default', fallbackTime: new Date(now).toISOString() });
    const user = users[memories % users.length];
    const life = lifecycle(r, now);
    kinds[life.kind] = (kinds[life.kind] ?? 0) + 1;
    memories++;
    for (const rec of toChunkRecords(doc, { maxChars: 1500 })) {
      if (records.length >= count) break;
      records.push({ ...rec, user, status: life.status, expires: life.expires ?? NO_EXPIRY });
    }
  }
  const eligible = records.filter((c) => c.status === 'active' && c.expires > now).length;
  return { records, memories, files: files.length, memoryLifecycle: kinds, eligibleChunks: eligible };
}

/** A random unit vector (Gaussian components, normalised). */
function unitVector(r, dim) {
  const v = new Array(dim);
  let norm = 0;
  for (let i = 0; i < dim; i += 2) {
    const u1 = Math.max(r.next(), 1e-12);
    const u2 = r.next();
    const m = Math.sqrt(-2 * Math.log(u1));
    v[i] = m * Math.cos(2 * Math.PI * u2);
    if (i + 1 < dim) v[i + 1] = m * Math.sin(2 * Math.PI * u2);
  }
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  return v.map((x) => x / norm);
}

// ---- queries --------------------------------------------------------------------------------------
const QW = {
  name: ['Alice', 'Bob', 'Chen', 'Diana', 'Emil', 'Fatima', 'George', 'Hana', 'Ivan', 'Marco', 'Nadia', 'Priya', 'Rosa', 'Sven'],
  project: ['billing', 'onboarding', 'search revamp', 'mobile app', 'data warehouse', 'payments', 'analytics', 'checkout'],
  component: ['auth', 'ingest', 'scheduler', 'notification', 'gateway', 'indexer', 'cache', 'webhook'],
  city: ['Lisbon', 'Kyoto', 'Berlin', 'Nairobi', 'Montreal', 'Oslo', 'Seoul', 'Porto'],
  tool: ['Gradle', 'webpack', 'Bazel', 'cargo', 'pnpm', 'Maven'],
  hobby: ['bouldering', 'sourdough baking', 'chess', 'birdwatching', 'pottery'],
  topic: ['quarterly planning', 'the hiring pipeline', 'the API deprecation', 'the office move', 'vendor contracts'],
};
const QT = [
  (r) => `what does ${r.pick(QW.name)} like to drink`,
  (r) => `when is the ${r.pick(QW.project)} deadline now`,
  (r) => `why does the ${r.pick(QW.tool)} build keep failing`,
  (r) => `where should we eat in ${r.pick(QW.city)}`,
  (r) => `steps to deploy ${r.pick(QW.project)} to production`,
  (r) => `is ${r.pick(QW.name)} allergic to anything`,
  (r) => `what caused the last ${r.pick(QW.component)} outage`,
  (r) => `how long are ${r.pick(QW.component)} logs kept`,
  (r) => `who approved the ${r.pick(QW.project)} budget`,
  (r) => `what did we decide about ${r.pick(QW.topic)}`,
  (r) => `does ${r.pick(QW.name)} do ${r.pick(QW.hobby)} on weekends`,
  (r) => `which metric to watch after a ${r.pick(QW.component)} deploy`,
  (r) => `ticket for the ${r.pick(QW.project)} regression`,
  (r) => `when does the flight to ${r.pick(QW.city)} leave`,
  (r) => `${r.pick(QW.component)} service debugging checklist`,
];

/** `n` distinct queries: the corpus benchmark's own, then templated ones. */
function queryList(n, skip = 0) {
  const r = prng(777);
  const seen = new Set();
  const out = [];
  for (const q of QUERIES) {
    if (!seen.has(q)) {
      seen.add(q);
      out.push(q);
    }
  }
  for (let tries = 0; out.length < n + skip && tries < 100_000; tries++) {
    const q = r.pick(QT)(r);
    if (!seen.has(q)) {
      seen.add(q);
      out.push(q);
    }
  }
  while (out.length < n + skip) out.push(`${out[out.length % QUERIES.length]} (${out.length})`);
  return out.slice(skip, skip + n);
}

async function rssMiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
    return m ? round(Number(m[1]) / 1024, 0) : null;
  } catch {
    return null;
  }
}

/** Times every call of the named async methods of `target`; samples go to `sink[name]`. */
function timed(label, target, names, sink, enabled) {
  const wrapped = Object.create(target);
  for (const name of names) {
    wrapped[name] = async (...a) => {
      if (!enabled.on) return target[name](...a);
      const t = performance.now();
      try {
        return await target[name](...a);
      } finally {
        const key = `${label}.${name}${typeof a[0]?.mode === 'string' ? ` ${a[0].mode}` : ''}${a[0]?.kind === 'window' ? ' window' : ''}`;
        (sink[key] ??= []).push(performance.now() - t);
      }
    };
  }
  return wrapped;
}

// ---- main -----------------------------------------------------------------------------------------
async function main() {
  const startedAt = new Date();
  const now = startedAt.getTime();
  const root = await mkdtemp(join(os.tmpdir(), 'memdir-scale-'));
  const stateDir = join(root, '.mem');
  const serversDir = join(stateDir, 'servers');
  const out = {
    date: startedAt.toISOString(),
    command: `node scripts/bench/scale.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    machine: machine(),
    loadAverageAtStart: os.loadavg().map((x) => round(x, 2)),
    root,
    // The servers inherit this process's environment: OpenMP settings change the embedder's (and faiss's) behaviour.
    ompEnv: Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('OMP_'))),
    settings: {
      chunks: CHUNKS,
      users: USER_COUNT,
      queries: QUERY_COUNT,
      warmup: WARMUP,
      k: K,
      mode: 'hybrid',
      accessStats: 'JsonAccessStats (real, file-backed)',
    },
    corpus: null,
    setup: null,
    ingest: null,
    search: null,
    servers: null,
  };
  let index = null;
  let failure = null;
  try {
    // 1. Rows (texts and metadata; vectors are drawn per batch at upsert time).
    log(`generating ${CHUNKS} chunk rows for ${USER_COUNT} users in ${root}`);
    let t = performance.now();
    const users = userList(USER_COUNT);
    const corpus = await chunkRecords(root, CHUNKS, users, now);
    const rows = corpus.records;
    out.corpus = {
      chunks: rows.length,
      units: rows.filter((c) => c.kind === 'unit').length,
      windows: rows.filter((c) => c.kind === 'window').length,
      memories: corpus.memories,
      users: users.length,
      corpusFilesWritten: corpus.files,
      avgChunkChars: Math.round(rows.reduce((n, c) => n + c.content.length, 0) / rows.length),
      memoryLifecycle: corpus.memoryLifecycle,
      eligibleChunks: corpus.eligibleChunks,
      vectors: `random unit vectors, ${LOCAL_EMBEDDING.dimension} dims`,
      seconds: round((performance.now() - t) / 1000, 2),
    };

    // 2. Servers (the embedded default: Milvus Lite and the local embedding server), as connect() in open-memory.ts starts them.
    log('starting Milvus Lite and the embedding server');
    t = performance.now();
    const config = loadConfig(process.env, { root });
    const runtime = await ensureRuntime({ home: config.runtimeHome, python: config.python, onLog: log });
    const [milvus, embedderServer] = await Promise.all([
      ensureServer(milvusLiteSpec(runtime, serverLayout(stateDir), 0)),
      ensureServer(embeddingServerSpec(runtime, serverLayout(stateDir), 0)),
    ]);
    out.setup = { seconds: round((performance.now() - t) / 1000, 2), milvusPort: milvus.port, embedderPort: embedderServer.port };

    // embedded: the root's Milvus Lite, as openMemory wires it (a user's search names its bucket partition).
    index = new MilvusIndex({ address: `127.0.0.1:${milvus.port}`, token: milvus.secret, collection: 'memdir', embedded: true });
    const embedder = new OpenAIEmbedder({
      baseURL: `http://127.0.0.1:${embedderServer.port}/v1`,
      apiKey: embedderServer.secret,
      model: 'e5-passage',
      queryModel: 'e5-query',
      identityName: LOCAL_EMBEDDING.name,
      dimension: LOCAL_EMBEDDING.dimension,
    });

    // 3. Ingest: upsert in batches, then flush (seals the rows into indexed segments, as reindex does).
    await index.open(embedder.identity);
    log(`upserting ${rows.length} rows in batches of ${UPSERT_BATCH}`);
    const vr = prng(99);
    const upsertMs = [];
    t = performance.now();
    for (let i = 0; i < rows.length; i += UPSERT_BATCH) {
      const batch = rows.slice(i, i + UPSERT_BATCH).map((c) => ({ ...c, vector: unitVector(vr, LOCAL_EMBEDDING.dimension) }));
      const t1 = performance.now();
      await index.upsert(batch);
      upsertMs.push(performance.now() - t1);
      if ((i / UPSERT_BATCH) % 10 === 9) log(`  ${i + batch.length} rows`);
    }
    const upsertSec = (performance.now() - t) / 1000;
    const t2 = performance.now();
    await index.flush();
    const flushSec = (performance.now() - t2) / 1000;
    const indexRows = await index.count({ users: 'all' });
    out.ingest = {
      rows: rows.length,
      indexRows,
      upsertSeconds: round(upsertSec, 2),
      rowsPerSecond: round(rows.length / upsertSec, 0),
      upsertBatchMs: stats(upsertMs),
      flushSeconds: round(flushSec, 2),
    };
    if (indexRows !== rows.length) throw new Error(`index holds ${indexRows} rows after ingest, expected ${rows.length}`);

    // 4. The dependencies searchMemories needs, as openMemory wires them. The manifest is a stub that
    //    says "indexed before" (so search never syncs the corpus files); access stats are the real
    //    JsonAccessStats (read on every search, written on every search that returns results).
    const timing = {};
    const timingOn = { on: false };
    const manifest = { exists: async () => true, load: async () => new Map(), save: async () => {} };
    const deps = {
      files: new FsMemoryFiles(root),
      index: timed('index', index, ['open', 'search', 'unitsWithin'], timing, timingOn),
      embedder: timed('embedder', embedder, ['embedQuery'], timing, timingOn),
      cache: new LmdbVectorCache(stateDir, 'scale-bench'),
      manifest,
      lock: new FileLock(stateDir),
      audit: new GitAudit(root, false),
      access: timed('access', new JsonAccessStats(stateDir), ['get', 'touch'], timing, timingOn),
      scoring: DEFAULT_SCORING,
      fusion: DEFAULT_FUSION,
      chunking: { maxChars: 1500 },
      defaultUser: 'default',
      embedBatchSize: 32,
      maxFileBytes: 5 * 1024 * 1024,
      now: () => new Date(),
    };

    // 5. Warm-up, then the timed queries: one user each, rotating.
    log(`${WARMUP} warm-up queries, then ${QUERY_COUNT} timed`);
    for (const [i, q] of queryList(WARMUP, QUERY_COUNT).entries()) {
      await searchMemories(deps, { query: q, user: users[i % users.length], k: K }, WINDOWS);
      await embedder.embedQuery(q);
    }
    out.loadAverageBeforeQueries = os.loadavg().map((x) => round(x, 2));
    const queries = queryList(QUERY_COUNT);
    const full = [];
    const embedAlone = [];
    const denseAlone = [];
    const bm25Alone = [];
    const hits = [];
    let scopeViolations = 0;
    const searchStarted = performance.now();
    for (const [i, q] of queries.entries()) {
      const user = users[i % users.length];
      timingOn.on = true;
      let t0 = performance.now();
      const results = await searchMemories(deps, { query: q, user, k: K }, WINDOWS);
      full.push(performance.now() - t0);
      timingOn.on = false;
      hits.push(results.length);
      scopeViolations += results.filter((r) => r.user !== user || r.status !== 'active' || (r.expires && Date.parse(r.expires) <= Date.now())).length;

      // The same work piece by piece, one call at a time (searchMemories runs dense and BM25 concurrently).
      t0 = performance.now();
      const vector = await embedder.embedQuery(q);
      embedAlone.push(performance.now() - t0);
      const scope = eligibilityScope({ query: q, user }, new Date());
      const limit = Math.max(40, K * 5);
      t0 = performance.now();
      await index.search({ mode: 'dense', scope, queryVector: vector, limit });
      denseAlone.push(performance.now() - t0);
      t0 = performance.now();
      await index.search({ mode: 'bm25', scope, queryText: q, limit });
      bm25Alone.push(performance.now() - t0);
    }
    const searchSec = (performance.now() - searchStarted) / 1000;
    // What the timed calls inside (a) do not explain: dense (after the embedding) runs alongside BM25,
    // then access stats are read and written; the rest is memdir's own work and scheduling.
    const at = (k, i) => timing[k]?.[i] ?? 0;
    const residual = full.map(
      (f, i) =>
        f -
        Math.max(at('embedder.embedQuery', i) + at('index.search dense', i), at('index.search bm25', i)) -
        at('index.open', i) -
        at('access.get', i) -
        at('access.touch', i),
    );
    out.search = {
      queries: queries.length,
      seconds: round(searchSec, 1),
      full: stats(full),
      embedQuery: stats(embedAlone),
      denseSearch: stats(denseAlone),
      bm25Search: stats(bm25Alone),
      insideSearch: { ...Object.fromEntries(Object.entries(timing).map(([k, v]) => [k, stats(v)])), unattributed: stats(residual) },
      avgHits: round(hits.reduce((a, b) => a + b, 0) / hits.length, 1),
      zeroHitQueries: hits.filter((h) => h === 0).length,
      scopeViolations,
      target: { p50Ms: 50, met: stats(full).p50 <= 50 },
    };
    out.servers = { milvusRssMiB: await rssMiB(milvus.pid), embedderRssMiB: await rssMiB(embedderServer.pid) };
  } catch (err) {
    failure = err;
  } finally {
    if (index) await index.close().catch(() => undefined);
    try {
      for (const name of ['milvus-lite', 'embedder']) await stopServer({ stateDir: serversDir, name, stopSignal: 'SIGINT' }).catch(() => false);
    } catch (err) {
      log(`could not stop the servers: ${err instanceof Error ? err.message : String(err)}`);
    }
    out.loadAverageAtEnd = os.loadavg().map((x) => round(x, 2));
    if (args.keep) log(`kept ${root}`);
    else await rm(root, { recursive: true, force: true });
  }

  if (args.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  else process.stdout.write(`${render(out)}\n`);
  if (failure) {
    process.stderr.write(`\n[scale] FAILED: ${failure instanceof Error ? failure.stack : String(failure)}\n`);
    process.exitCode = 1;
  }
}

function table(rows) {
  const w = Math.max(...rows.filter(([, v]) => v !== undefined).map(([k]) => k.length));
  return rows
    .map(([k, v]) => (v === undefined ? `\n${k}` : `  ${k.padEnd(w)}  ${v}`))
    .join('\n')
    .trimStart();
}

const ms = (s) =>
  `p50 ${String(s.p50).padStart(6)} ms   p95 ${String(s.p95).padStart(6)} ms   mean ${String(s.mean).padStart(6)} ms   (min ${s.min}, max ${s.max}, n ${s.n})`;

function render(o) {
  const m = o.machine;
  const rows = [
    ['memdir scale benchmark (warm search, server-side)', undefined],
    ['date', o.date],
    ['machine', `${m.cpuModel} x${m.cpuCount}, ${m.totalMemoryGiB} GiB, ${m.platform}, node ${m.node}`],
    [
      'OpenMP env (servers inherit it)',
      Object.entries(o.ompEnv)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ') || '(none)',
    ],
    [
      'load average start / before queries / end',
      `${o.loadAverageAtStart.join(' ')} / ${(o.loadAverageBeforeQueries ?? []).join(' ')} / ${(o.loadAverageAtEnd ?? []).join(' ')}`,
    ],
  ];
  if (o.corpus) {
    const c = o.corpus;
    rows.push(
      ['index rows (synthetic)', undefined],
      [
        'rows (units + windows) / memories / users',
        `${c.chunks} (${c.units} + ${c.windows}) / ${c.memories} / ${c.users} (avg ${c.avgChunkChars} chars per row)`,
      ],
      [
        'memory lifecycle',
        Object.entries(c.memoryLifecycle)
          .map(([k, v]) => `${k} ${v}`)
          .join(', '),
      ],
      ['eligible chunks (active, unexpired)', `${c.eligibleChunks}`],
      ['vectors', c.vectors],
    );
  }
  if (o.setup) rows.push(['start servers (excluded)', `${o.setup.seconds} s`]);
  if (o.ingest) {
    const g = o.ingest;
    rows.push([
      'ingest (excluded)',
      `${g.rows} rows upserted in ${g.upsertSeconds} s (${g.rowsPerSecond} rows/s, ${UPSERT_BATCH}-row batch p50 ${g.upsertBatchMs.p50} ms), flush ${g.flushSeconds} s`,
    ]);
  }
  if (o.search) {
    const s = o.search;
    rows.push(
      [`search latency, ${s.queries} queries after ${o.settings.warmup} warm-up (k ${o.settings.k}, hybrid)`, undefined],
      ['(a) searchMemories, full call', ms(s.full)],
      ['(b) embedder.embedQuery alone', ms(s.embedQuery)],
      ['(c) index.search dense alone', ms(s.denseSearch)],
      ['(c) index.search bm25 alone', ms(s.bm25Search)],
      ['inside (a): the same calls, timed in place', undefined],
    );
    for (const [k, v] of Object.entries(s.insideSearch)) rows.push([`  ${k}`, ms(v)]);
    rows.push(
      ['results', `avg ${s.avgHits} hits, ${s.zeroHitQueries} queries with none, ${s.scopeViolations} out-of-scope results`],
      ['target p50 <= 50 ms', `${s.target.met ? 'met' : 'NOT met'}: p50 ${s.full.p50} ms at ${o.corpus.chunks} chunks (the issue's bar is at 10,000)`],
    );
  }
  if (o.servers) rows.push(['server memory after the run', `Milvus Lite ${o.servers.milvusRssMiB} MiB RSS, embedder ${o.servers.embedderRssMiB} MiB RSS`]);
  return table(rows);
}

await main();
