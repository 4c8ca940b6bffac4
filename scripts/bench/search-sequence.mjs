// Each `mem search` of the scale bench's search step, one by one (run.mjs step 5: the daemon stopped, one
// untimed search, then the timed ones rotating over the users), with whether the daemon was listening before
// each and how many warm-up searches it still had to run: to see which searches make the p95 (a daemon still
// starting, a user's first search, the warm-up, the load).
//
// Usage: node scripts/bench/search-sequence.mjs --root /tmp/memdir-bench-XXXX [--server-home <dir>] [--searches 20]
//        [--keep-daemon] [--mem <bin/mem.js of another build>] [--json]   (--keep-daemon: do not stop the running
//        daemon first). Needs a build.
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { QUERIES, USERS } from './corpus.mjs';
import { daemonCallCode, nodeOutput, timedNode } from './child.mjs';
import { defaultsEnv } from './local.mjs';
import { machine, round, stats } from './stats.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MEM_OF_REPO = join(REPO, 'bin', 'mem.js');

const { values: args } = parseArgs({
  options: {
    root: { type: 'string' },
    'server-home': { type: 'string' },
    searches: { type: 'string', default: '20' },
    'keep-daemon': { type: 'boolean', default: false },
    mem: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
if (!args.root) throw new Error('--root is required (a root indexed beforehand, e.g. by `npm run bench -- --keep`)');
const ROOT = resolve(args.root);
const MEM = args.mem ? resolve(args.mem) : MEM_OF_REPO;
const env = { ...defaultsEnv(), MEMDIR_SERVER_HOME: args['server-home'] ?? `${ROOT}-servers` };

const timedRun = (argv) => timedNode(argv, { cwd: REPO, env });

// The daemon client is not part of the package's API: a child process asks it (as search-profile.mjs does).
const daemonCall = (op) => daemonCallCode(REPO, ROOT, op, 2000);
/** The daemon's ping answer ({ warming, … }), or null if none listens. */
const listening = () =>
  nodeOutput(['--input-type=module', '-e', daemonCall('ping')], { cwd: REPO, env }).then(
    ({ stdout }) => JSON.parse(stdout),
    () => null,
  );

const out = { date: new Date().toISOString(), command: `node scripts/bench/search-sequence.mjs ${process.argv.slice(2).join(' ')}`, machine: machine() };
out.loadAverageAtStart = os.loadavg().map((x) => round(x, 2));
if (!args['keep-daemon']) {
  await timedRun(['--input-type=module', '-e', daemonCall('stop')]).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 2000));
}
await timedRun([MEM, '--root', ROOT, '--json', 'search', QUERIES[0], '--user', USERS[0]]);
const searches = [];
for (let i = 0; i < Number(args.searches); i++) {
  const query = QUERIES[(i + 1) % QUERIES.length];
  const user = USERS[i % USERS.length];
  const ping = await listening();
  const ms = round(await timedRun([MEM, '--root', ROOT, '--json', 'search', query, '--user', user]), 1);
  searches.push({ i, user, daemon: ping !== null, ...(ping?.warming !== undefined ? { warming: ping.warming } : {}), ms });
}
out.loadAverageAtEnd = os.loadavg().map((x) => round(x, 2));
out.searches = searches;
out.all = stats(searches.map((s) => s.ms));
out.withDaemon = stats(searches.filter((s) => s.daemon).map((s) => s.ms));
if (args.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
else {
  process.stdout.write(`search sequence on ${ROOT}, load ${out.loadAverageAtStart.join(' ')} -> ${out.loadAverageAtEnd.join(' ')}\n`);
  for (const s of searches) {
    const warming = s.warming === undefined ? '' : s.warming ? `, ${s.warming} warm-ups left` : ', warm';
    process.stdout.write(`  #${s.i} ${s.user.padEnd(9)} daemon ${s.daemon ? 'up  ' : 'down'}${warming} ${s.ms} ms\n`);
  }
  process.stdout.write(
    `  all: p50 ${out.all.p50} p95 ${out.all.p95}; daemon listening: p50 ${out.withDaemon.p50} p95 ${out.withDaemon.p95} (n ${out.withDaemon.n})\n`,
  );
}
