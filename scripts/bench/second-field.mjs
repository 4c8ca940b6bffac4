// `mem search` end to end with the second dense field on (MEM_SECOND_MODEL=mpnet, memdir's own mpnet server) at a
// generated corpus, against the same corpus with it off (issue 12): both roots indexed from synthetic vectors (as
// run.mjs --synthetic-vectors: random unit vectors in both fields' caches, so nothing is embedded; rankings are
// meaningless, latencies are not), then search-sequence.mjs's timed searches on each (the query is embedded by the
// real models, mpnet included), and mpnet's query embedding alone.
//
// Usage: node scripts/bench/second-field.mjs [--files 10000] [--searches 20] [--keep] [--json]   (needs a build and the
//        second runtime installed: MEM_SECOND_MODEL=mpnet mem setup)
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { LmdbVectorCache, sha256, stateLayout } from 'memdir/bench';

import { QUERIES, generateCorpus, prng } from './corpus.mjs';
import { defaultsEnv } from './local.mjs';
import { chunkTexts, fillCacheWithRandomVectors } from './synthetic.mjs';
import { machine, round, stats } from './stats.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MEM = join(REPO, 'bin', 'mem.js');
const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: '10000' },
    searches: { type: 'string', default: '20' },
    keep: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const FILES = Number(args.files);
const log = (msg) => process.stderr.write(`[second-field] ${msg}\n`);

function run(cmd, argv, env) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, argv, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => (code === 0 ? resolvePromise(stdout) : reject(new Error(`${argv.join(' ')} exited ${code}: ${stderr.slice(-2000)}`))));
  });
}

/** The second field's cache (src/open-memory.ts's key), filled with random 768-d unit vectors for every chunk text. */
async function fillSecondCache(root, chunked) {
  const cache = new LmdbVectorCache(stateLayout(root).dir, sha256('all-mpnet-base-v2@768').slice(0, 16));
  const rand = prng(11).next;
  let batch = new Map();
  for (const hash of new Set(chunked.flatMap((f) => f.records.map((r) => r.textHash)))) {
    const v = Array.from({ length: 768 }, () => rand() - 0.5);
    const norm = Math.hypot(...v);
    batch.set(
      hash,
      v.map((x) => x / norm),
    );
    if (batch.size >= 1000) {
      await cache.putMany(batch);
      batch = new Map();
    }
  }
  await cache.putMany(batch);
  await cache.close();
}

async function measure(second) {
  const root = await mkdtemp(join(os.tmpdir(), `memdir-second-${second ? 'on' : 'off'}-`));
  const env = { ...defaultsEnv(), MEMDIR_SERVER_HOME: `${root}-servers`, MEM_GIT: 'off' };
  delete env.MEM_SECOND_MODEL;
  delete env.MEM_SECOND_MODEL_URL;
  if (second) env.MEM_SECOND_MODEL = 'mpnet';
  log(`${second ? 'on' : 'off'}: generating ${FILES} files in ${root}`);
  const { files } = await generateCorpus(root, FILES);
  const chunked = await chunkTexts(root, files);
  await fillCacheWithRandomVectors(root, chunked);
  if (second) await fillSecondCache(root, chunked);
  const t0 = performance.now();
  const index = JSON.parse(await run(process.execPath, [MEM, '--root', root, '--json', 'reindex'], env));
  const indexSeconds = round((performance.now() - t0) / 1000, 1);
  log(`${second ? 'on' : 'off'}: indexed in ${indexSeconds} s (embedded ${index.embedded})`);
  const seq = JSON.parse(
    await run(process.execPath, [join(REPO, 'scripts/bench/search-sequence.mjs'), '--root', root, '--searches', args.searches, '--json'], env),
  );
  let queryEmbedding;
  if (second) {
    // mpnet's query embedding alone, through its server's record (as the search does), one query at a time.
    const rec = JSON.parse(await readFile(join(`${root}-servers`, 'servers', 'mpnet.json'), 'utf8'));
    const ms = [];
    for (const q of QUERIES) {
      const s = performance.now();
      const res = await fetch(`http://127.0.0.1:${rec.port}/v1/embeddings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${rec.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'all-mpnet-base-v2', input: [q] }),
      });
      await res.json();
      ms.push(round(performance.now() - s, 1));
    }
    queryEmbedding = stats(ms);
  }
  await run(process.execPath, [MEM, '--root', root, '--json', 'server', 'stop', '--all'], env).catch((err) => log(String(err)));
  if (!args.keep) {
    await rm(root, { recursive: true, force: true });
    await rm(`${root}-servers`, { recursive: true, force: true });
  }
  return {
    root,
    indexSeconds,
    rows: index.chunks,
    search: seq.withDaemon,
    all: seq.all,
    load: [seq.loadAverageAtStart, seq.loadAverageAtEnd],
    ...(queryEmbedding ? { mpnetQueryEmbedding: queryEmbedding } : {}),
  };
}

const out = {
  date: new Date().toISOString(),
  command: `node scripts/bench/second-field.mjs ${process.argv.slice(2).join(' ')}`,
  machine: machine(),
  files: FILES,
};
out.off = await measure(false);
out.on = await measure(true);
if (args.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
else {
  for (const k of ['off', 'on']) {
    const r = out[k];
    process.stdout.write(
      `field ${k}: index ${r.indexSeconds} s; mem search with the daemon p50 ${r.search.p50} p95 ${r.search.p95} ms (n ${r.search.n}); load ${r.load[0].join(' ')} -> ${r.load[1].join(' ')}\n`,
    );
  }
  if (out.on.mpnetQueryEmbedding)
    process.stdout.write(`mpnet query embedding alone: p50 ${out.on.mpnetQueryEmbedding.p50} p95 ${out.on.mpnetQueryEmbedding.p95} ms\n`);
}
