// Same results, and how long each build takes for them: two builds' `searchMemories`, each in a process of its own (search-side.mjs) on its own
// copy of one root with its own servers (so each build's Milvus Lite, with its launcher's patches, serves its copy),
// every bench query for every user, alternated search by search; each pair must give the same ranked list with the
// same scores and fields (`at` fixed and nothing tracked, so recency and access statistics are the same for both).
//
// Usage: node scripts/bench/search-same.mjs --a <repo> --root-a <root> [--server-home-a <dir>]
//                                           --b <repo> --root-b <root> [--server-home-b <dir>] [--rounds 1] [--pairs N] [--json]
//        (a repo is a checkout with a build; a server home defaults to `<root>-servers`, as the bench keeps it.)
import os from 'node:os';
import { resolve } from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';

import { QUERIES, USERS } from './corpus.mjs';
import { defaultsEnv } from './local.mjs';
import { startSide } from './search-side.mjs';
import { machine, round, stats } from './stats.mjs';

const { values: args } = parseArgs({
  options: {
    a: { type: 'string' },
    'root-a': { type: 'string' },
    'server-home-a': { type: 'string' },
    b: { type: 'string' },
    'root-b': { type: 'string' },
    'server-home-b': { type: 'string' },
    rounds: { type: 'string', default: '1' },
    // At most this many pairs per round (default: every query for every user, 240).
    pairs: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
if (!args.a || !args.b || !args['root-a'] || !args['root-b']) throw new Error('--a, --root-a, --b and --root-b are required');
const ROUNDS = Number(args.rounds);
const MAX_PAIRS = args.pairs ? Number(args.pairs) : Infinity;
const log = (msg) => process.stderr.write(`[same] ${msg}\n`);

function open(side) {
  const repo = resolve(args[side]);
  const root = resolve(args[`root-${side}`]);
  const env = { ...defaultsEnv(), MEMDIR_SERVER_HOME: args[`server-home-${side}`] ?? `${root}-servers` };
  return { repo, root, requests: [], memory: startSide(repo, root, env) };
}

const sides = { a: open('a'), b: open('b') };
const out = { date: new Date().toISOString(), command: `node scripts/bench/search-same.mjs ${process.argv.slice(2).join(' ')}`, machine: machine() };
out.builds = { a: sides.a.repo, b: sides.b.repo };
out.roots = { a: sides.a.root, b: sides.b.root };
const at = new Date();
const input = (query, user) => ({ query, user, at, track: false });
try {
  // Untimed: each user's first search (Milvus Lite builds that partition's BM25 index), on both sides.
  log('warming every user on both sides');
  for (const user of USERS) for (const side of Object.values(sides)) await side.memory.search(input('memory', user));
  out.loadAverageAtStart = os.loadavg().map((x) => round(x, 2));
  const times = { a: [], b: [] };
  let pairs = 0;
  let results = 0;
  const differences = [];
  for (let r = 0; r < ROUNDS; r++) {
    const roundStart = pairs;
    for (let q = 0; q < QUERIES.length; q++) {
      for (let u = 0; u < USERS.length && pairs - roundStart < MAX_PAIRS; u++) {
        const query = QUERIES[q];
        const user = USERS[(u + q) % USERS.length];
        // Which side goes first alternates, so that the load of a shared machine falls on both alike.
        const order = (pairs % 2 === 0 ? ['a', 'b'] : ['b', 'a']).map((k) => [k, sides[k]]);
        const got = {};
        for (const [k, side] of order) {
          const answer = await side.memory.search(input(query, user));
          got[k] = answer.results;
          times[k].push(answer.ms);
          side.requests.push(...answer.requests);
        }
        pairs++;
        results += got.a.length;
        if (!isDeepStrictEqual(got.a, got.b)) differences.push({ query, user });
      }
    }
    log(`round ${r + 1}: ${pairs} pairs, ${differences.length} differing`);
  }
  out.loadAverageAtEnd = os.loadavg().map((x) => round(x, 2));
  out.pairs = pairs;
  out.resultsCompared = results;
  out.differences = differences;
  out.searchA = stats(times.a);
  out.searchB = stats(times.b);
  out.pairedDiffAminusB = stats(times.a.map((ms, i) => ms - times.b[i]));
  const perRequest = (requests) => {
    const by = {};
    for (const r of requests) (by[r.what] ??= []).push(r.ms);
    return Object.fromEntries(Object.entries(by).map(([k, v]) => [k, stats(v)]));
  };
  out.requestsA = perRequest(sides.a.requests);
  out.requestsB = perRequest(sides.b.requests);
} finally {
  for (const side of Object.values(sides)) await side.memory.close();
}
if (args.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
else {
  const line = (k, s) => `  ${k.padEnd(28)} p50 ${s.p50} ms  p95 ${s.p95} ms  (n ${s.n ?? s.count ?? '?'})`;
  process.stdout.write(
    [
      `searchMemories A/B, load ${out.loadAverageAtStart.join(' ')} -> ${out.loadAverageAtEnd.join(' ')}`,
      `  ${out.pairs} pairs, ${out.resultsCompared} results each, ${out.differences.length} pairs differing`,
      line(`A (${out.builds.a})`, out.searchA),
      line(`B (${out.builds.b})`, out.searchB),
      line('A - B, same pair', out.pairedDiffAminusB),
      ...Object.keys(out.requestsA).flatMap((k) => [line(`A request ${k}`, out.requestsA[k]), line(`B request ${k}`, out.requestsB[k] ?? {})]),
    ].join('\n') + '\n',
  );
}
