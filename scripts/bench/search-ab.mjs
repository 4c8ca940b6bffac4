// `mem search` through the warm daemon, end to end, for two builds alternated search by search (e.g. main's checkout
// and this one), so that the load of a shared machine falls on both alike; also each build's bare start-up
// (`mem --help`: Node, commander and the declarations of every command) and `node -e 0`. The daemon serving the root answers both builds
// (same protocol): it is the CLI's side that is compared, unless the daemons differ too.
//
// With --root-b (and --server-home-b), build B searches its own copy of the root, served by its own servers and daemon
// (each started by that build): then the daemons and Milvus Lite launchers are compared too, not only the CLIs.
//
// Usage: node scripts/bench/search-ab.mjs --root <root> --server-home <dir> --a <repo> --b <repo> [--root-b <root>
//        --server-home-b <dir>] [--searches 30] [--json]
import os from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { QUERIES, USERS } from './corpus.mjs';
import { timedNode } from './child.mjs';
import { defaultsEnv } from './local.mjs';
import { machine, round, stats } from './stats.mjs';

const { values: args } = parseArgs({
  options: {
    root: { type: 'string' },
    'server-home': { type: 'string' },
    a: { type: 'string' },
    b: { type: 'string' },
    'root-b': { type: 'string' },
    'server-home-b': { type: 'string' },
    searches: { type: 'string', default: '30' },
    json: { type: 'boolean', default: false },
  },
});
if (!args.root || !args.a || !args.b) throw new Error('--root, --a and --b are required');
const ROOT = resolve(args.root);
const env = { ...defaultsEnv(), MEMDIR_SERVER_HOME: args['server-home'] ?? `${ROOT}-servers` };
const ROOT_B = args['root-b'] ? resolve(args['root-b']) : ROOT;
const envB = args['root-b'] ? { ...defaultsEnv(), MEMDIR_SERVER_HOME: args['server-home-b'] ?? `${ROOT_B}-servers` } : env;
const rootOf = (repo) => (repo === builds.b ? ROOT_B : ROOT);
const envOf = (repo) => (repo === builds.b ? envB : env);
const builds = { a: resolve(args.a), b: resolve(args.b) };
const N = Number(args.searches);
const search = (repo, i) => [
  join(repo, 'bin/mem.js'),
  '--root',
  rootOf(repo),
  '--json',
  'search',
  QUERIES[i % QUERIES.length],
  '--user',
  USERS[(i * 3) % USERS.length],
];

const out = { date: new Date().toISOString(), command: `node scripts/bench/search-ab.mjs ${process.argv.slice(2).join(' ')}`, machine: machine(), builds };
out.loadAverageAtStart = os.loadavg().map((x) => round(x, 2));
// Warm: each build's first searches (module caches of the OS, the daemon's partitions) are not timed.
for (let i = 0; i < 3; i++) for (const repo of Object.values(builds)) await timedNode(search(repo, i), { cwd: repo, env: envOf(repo) });
const times = { a: [], b: [], startA: [], startB: [], node: [] };
for (let i = 0; i < N; i++) {
  // Alternated, and which build goes first alternates too.
  const order = i % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
  for (const k of order) times[k].push(await timedNode(search(builds[k], i), { cwd: builds[k], env: envOf(builds[k]) }));
  if (i % 3 === 0) {
    for (const k of order) times[k === 'a' ? 'startA' : 'startB'].push(await timedNode([join(builds[k], 'bin/mem.js'), '--help'], { cwd: builds[k], env }));
    times.node.push(await timedNode(['-e', '0'], { cwd: builds.a, env }));
  }
}
out.loadAverageAtEnd = os.loadavg().map((x) => round(x, 2));
out.searchA = stats(times.a);
out.searchB = stats(times.b);
out.helpA = stats(times.startA);
out.helpB = stats(times.startB);
out.nodeBare = stats(times.node);
// The two builds' searches of the same round ran back to back: their difference is the fairer figure under load.
out.pairedDiffAminusB = stats(times.a.map((ms, i) => ms - times.b[i]));
if (args.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
else {
  const line = (k, s) => `  ${k.padEnd(28)} p50 ${s.p50} ms  p95 ${s.p95} ms  (n ${s.n ?? s.count ?? '?'})`;
  process.stdout.write(
    [
      `mem search A/B on ${ROOT}, load ${out.loadAverageAtStart.join(' ')} -> ${out.loadAverageAtEnd.join(' ')}`,
      line(`A search (${builds.a})`, out.searchA),
      line(`B search (${builds.b})`, out.searchB),
      line('A mem --help', out.helpA),
      line('B mem --help', out.helpB),
      line('node -e 0', out.nodeBare),
      line('A - B, same round', out.pairedDiffAminusB),
    ].join('\n') + '\n',
  );
}
