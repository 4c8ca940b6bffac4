// A search's index requests, the old plan against the new one, alternated query by query on the same server:
// before, BM25 over units and BM25 over windows as two requests (each a pass over every row in Milvus Lite); after,
// one request over both kinds (`kinds`). Dense is one request per kind in both. Checks that both give the same
// hits and scores, and times the BM25 requests alone and the four (or three) requests of a search together.
//
// Usage: node scripts/bench/search-passes.mjs --root /tmp/memdir-bench-XXXX [--server-home <dir>] [--queries 30] [--json]
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { loadConfig, openMemory } from 'memdir';

import { QUERIES, USERS } from './corpus.mjs';
import { defaultsEnv } from './local.mjs';
import { machine, round, stats } from './stats.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: args } = parseArgs({
  options: {
    root: { type: 'string' },
    'server-home': { type: 'string' },
    queries: { type: 'string', default: '30' },
    json: { type: 'boolean', default: false },
  },
});
if (!args.root) throw new Error('--root is required (a root indexed beforehand, e.g. by `npm run bench -- --keep`)');
const ROOT = resolve(args.root);
const env = { ...defaultsEnv(), MEMDIR_SERVER_HOME: args['server-home'] ?? `${ROOT}-servers` };
const { eligibilityScope } = await import(join(REPO, 'dist/services/search.js'));

const out = { date: new Date().toISOString(), command: `node scripts/bench/search-passes.mjs ${process.argv.slice(2).join(' ')}`, machine: machine() };
out.loadAverageAtStart = os.loadavg().map((x) => round(x, 2));
let index;
let embedder;
const memory = await openMemory(loadConfig(env, { root: ROOT }), { wrapIndex: (i) => (index = i), wrapEmbedder: (e) => (embedder = e) });
const view = (hits) => hits.map((h) => `${h.record.chunkId}:${h.score.toFixed(6)}`).join(' ');
const timed = async (fn) => {
  const t = performance.now();
  const value = await fn();
  return [performance.now() - t, value];
};
const samples = { bm25Before: [], bm25After: [], searchBefore: [], searchAfter: [] };
let differing = 0;
try {
  await index.open(embedder.identity);
  // Every user's partition once, untimed: the first search of a partition builds its BM25 index (daemon/server.ts).
  for (const user of USERS) await index.search({ mode: 'bm25', scope: eligibilityScope({ query: 'x', user }, new Date()), queryText: 'memory', limit: 1 });
  const count = Number(args.queries);
  for (let i = 0; i < count; i++) {
    const query = QUERIES[i % QUERIES.length];
    const user = USERS[i % USERS.length];
    const scope = eligibilityScope({ query, user }, new Date());
    const queryVector = await embedder.embedQuery(query);
    const bm25 = { mode: 'bm25', scope, queryText: query, limit: 40 };
    const dense = (kind) => index.search({ mode: 'dense', scope, queryVector, limit: 40, kind });
    const before = () => Promise.all([index.search({ ...bm25, kind: 'unit' }), index.search({ ...bm25, kind: 'window' })]).then((h) => h.flat());
    const after = () => index.search({ ...bm25, kinds: ['unit', 'window'] });
    // Alternate which plan goes first, so that neither always meets the other's leftovers.
    for (const plan of i % 2 === 0 ? ['before', 'after'] : ['after', 'before']) {
      const run = plan === 'before' ? before : after;
      const [bm25Ms, hits] = await timed(run);
      const [searchMs] = await timed(() => Promise.all([run(), dense('unit'), dense('window')]));
      samples[`bm25${plan === 'before' ? 'Before' : 'After'}`].push(bm25Ms);
      samples[`search${plan === 'before' ? 'Before' : 'After'}`].push(searchMs);
      if (plan === 'before') out.lastBefore = view(hits);
      else out.lastAfter = view(hits);
    }
    if (out.lastBefore !== out.lastAfter) differing++;
  }
} finally {
  await memory.close();
}
delete out.lastBefore;
delete out.lastAfter;
out.loadAverageAtEnd = os.loadavg().map((x) => round(x, 2));
out.queries = Number(args.queries);
out.differingQueries = differing;
for (const [k, v] of Object.entries(samples)) out[k] = stats(v);
if (args.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
else {
  process.stdout.write(`index requests of ${ROOT}, ${out.queries} queries, load ${out.loadAverageAtStart.join(' ')} -> ${out.loadAverageAtEnd.join(' ')}\n`);
  process.stdout.write(`  hits and scores differing between the plans: ${differing} queries\n`);
  for (const k of Object.keys(samples)) process.stdout.write(`  ${k.padEnd(14)} p50 ${out[k].p50} ms  p95 ${out[k].p95} ms  min ${out[k].min} ms\n`);
}
