// The first searches after Milvus Lite starts, for two builds on two copies of one root: each side's servers are
// stopped, then each user's first search (which builds that user's partition BM25 index) and second search are timed
// in a process of that build (search-side.mjs), sides alternated run by run; the results of both sides are compared (`at` fixed, untracked).
//
// Usage: node scripts/bench/search-first.mjs --a <repo> --root-a <root> --b <repo> --root-b <root> [--runs 2] [--json]
//        (server homes: `<root>-servers`, as the bench keeps them.)
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual, parseArgs } from 'node:util';

import { QUERIES, USERS } from './corpus.mjs';
import { defaultsEnv } from './local.mjs';
import { startSide } from './search-side.mjs';
import { machine, round, stats } from './stats.mjs';

const { values: args } = parseArgs({
  options: {
    a: { type: 'string' },
    'root-a': { type: 'string' },
    b: { type: 'string' },
    'root-b': { type: 'string' },
    runs: { type: 'string', default: '2' },
    json: { type: 'boolean', default: false },
  },
});
if (!args.a || !args.b || !args['root-a'] || !args['root-b']) throw new Error('--a, --root-a, --b and --root-b are required');
const side = (k) => ({ repo: resolve(args[k]), root: resolve(args[`root-${k}`]) });
const sides = { a: side('a'), b: side('b') };
const envOf = (s) => ({ ...defaultsEnv(), MEMDIR_SERVER_HOME: `${s.root}-servers` });
const at = new Date();
const out = { date: at.toISOString(), command: `node scripts/bench/search-first.mjs ${process.argv.slice(2).join(' ')}`, machine: machine(), runs: [] };
const answers = { a: [], b: [] };
for (let run = 0; run < Number(args.runs); run++) {
  for (const k of run % 2 === 0 ? ['a', 'b'] : ['b', 'a']) {
    const s = sides[k];
    execFileSync(process.execPath, [join(s.repo, 'bin/mem.js'), '--root', s.root, 'server', 'stop', '--all'], { env: envOf(s), stdio: 'ignore' });
    const load = os.loadavg()[0];
    const t0 = performance.now();
    const side = startSide(s.repo, s.root, envOf(s));
    const first = [];
    const second = [];
    const got = [];
    try {
      for (const round of [first, second]) {
        for (let u = 0; u < USERS.length; u++) {
          const answer = await side.search({ query: QUERIES[u % QUERIES.length], user: USERS[u], at, track: false });
          round.push(answer.ms);
          if (round === first) got.push(answer.results);
        }
      }
    } finally {
      await side.close();
    }
    answers[k].push(got);
    out.runs.push({
      side: k,
      load: round(load, 2),
      openAndFirstRound: round(performance.now() - t0),
      first: stats(first),
      second: stats(second),
      firstEach: first.map((x) => round(x)),
    });
    process.stderr.write(`[first] run ${run + 1} ${k}: first p50 ${stats(first).p50} ms, second p50 ${stats(second).p50} ms (load ${round(load, 2)})\n`);
  }
}
out.sameResults = answers.a.every((got, i) => isDeepStrictEqual(got, answers.b[i]));
if (args.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
else
  process.stdout.write(
    out.runs.map((r) => `${r.side}: load ${r.load}, first ${r.first.p50} ms p50 (max ${r.first.max}), second ${r.second.p50} ms p50`).join('\n') +
      `\nsame results: ${out.sameResults}\n`,
  );
