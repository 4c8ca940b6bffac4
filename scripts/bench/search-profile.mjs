// Where the time of one `mem search` goes, on a root indexed beforehand (e.g. `npm run bench -- --keep`):
// the CLI end to end through the warm daemon, the CLI's own start-up (Node, then its imports), and inside
// searchMemories each call to the index, the embedder and the access statistics.
//
// Usage: node scripts/bench/search-profile.mjs --root /tmp/memdir-bench-XXXX [--server-home <dir>] [--queries 20] [--json]
//        (--server-home defaults to the bench's own `<root>-servers`). Needs a build.
import { spawn } from 'node:child_process';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { loadConfig, openMemory } from 'memdir';

import { QUERIES, USERS } from './corpus.mjs';
import { daemonCallCode, nodeOutput, timedNode } from './child.mjs';
import { defaultsEnv } from './local.mjs';
import { machine, round, stats } from './stats.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MEM = join(REPO, 'bin', 'mem.js');
const WARMUP = 3;

const { values: args } = parseArgs({
  options: {
    root: { type: 'string' },
    'server-home': { type: 'string' },
    queries: { type: 'string', default: '20' },
    json: { type: 'boolean', default: false },
  },
});
if (!args.root) throw new Error('--root is required (a root indexed beforehand, e.g. by `npm run bench -- --keep`)');
const ROOT = resolve(args.root);
const QUERY_COUNT = Number(args.queries);
const env = { ...defaultsEnv(), MEMDIR_SERVER_HOME: args['server-home'] ?? `${ROOT}-servers` };
const log = (msg) => process.stderr.write(`[profile] ${msg}\n`);
const queryAt = (i) => [QUERIES[(i + 1) % QUERIES.length], USERS[i % USERS.length]];

const timedRun = (argv) => timedNode(argv, { cwd: REPO, env });

/** Wraps the named methods of `target` so that each call's duration lands in `sink` under its label. */
function timed(label, target, names, sink) {
  const wrapped = Object.create(target);
  for (const name of names) {
    wrapped[name] = async (...a) => {
      const t = performance.now();
      try {
        return await target[name](...a);
      } finally {
        const kind = Array.isArray(a[0]?.kinds) ? ` ${a[0].kinds.join('+')}` : a[0]?.kind === 'window' ? ' window' : a[0]?.kind === 'unit' ? ' unit' : '';
        const key = `${label}.${name}${typeof a[0]?.mode === 'string' ? ` ${a[0].mode}` : ''}${kind}`;
        (sink.calls[key] ??= []).push(performance.now() - t);
      }
    };
  }
  return wrapped;
}

async function main() {
  const out = { date: new Date().toISOString(), command: `node scripts/bench/search-profile.mjs ${process.argv.slice(2).join(' ')}`, machine: machine() };
  out.loadAverageAtStart = os.loadavg().map((x) => round(x, 2));

  // 1. End to end, as the scale bench measures it: `mem search` through the warm daemon. A daemon of another
  //    build may serve this root (it answers any build of the same protocol): it is stopped, and this build's
  //    daemon started by a first search, then awaited until it listens and has finished its warm-up (a daemon of a
  //    build that does not say so: until it listens).
  log('end to end: mem search through the daemon');
  const daemonCall = (op) => daemonCallCode(REPO, ROOT, op);
  await timedRun(['--input-type=module', '-e', daemonCall('stop')]).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 2000));
  await timedRun([MEM, '--root', ROOT, '--json', 'search', QUERIES[0], '--user', USERS[0]]);
  for (let waited = 0; ; waited++) {
    const ping = await nodeOutput(['--input-type=module', '-e', daemonCall('ping')], { cwd: REPO, env }).then(
      ({ stdout }) => JSON.parse(stdout),
      () => null,
    );
    if (ping && !ping.warming) break;
    if (waited > 300) throw new Error('the search daemon did not start or warm up');
    await new Promise((r) => setTimeout(r, 1000));
  }
  for (let i = 0; i < WARMUP; i++) await timedRun([MEM, '--root', ROOT, '--json', 'search', queryAt(i)[0], '--user', queryAt(i)[1]]);
  const cli = [];
  for (let i = 0; i < QUERY_COUNT; i++) {
    const [q, u] = queryAt(i);
    cli.push(await timedRun([MEM, '--root', ROOT, '--json', 'search', q, '--user', u]));
  }
  // 1b. The daemon's leg alone: the same requests from one warm process (no CLI start), as `mem search` sends them;
  //     a child asks (the daemon client is not part of the package's API) and prints each time.
  const legScript =
    `const { loadConfig } = await import(${JSON.stringify(join(REPO, 'dist/index.js'))}); ` +
    `const { askDaemon } = await import(${JSON.stringify(join(REPO, 'dist/daemon/client.js'))}); ` +
    `const config = loadConfig(process.env, { root: ${JSON.stringify(ROOT)} }); const times = []; ` +
    `for (const [query, user] of ${JSON.stringify(Array.from({ length: QUERY_COUNT }, (_, i) => queryAt(i)))}) { ` +
    `const t = performance.now(); const r = await askDaemon(config, 'search', { query, k: 8, user }); ` +
    `if (!r?.ok) process.exit(1); times.push(performance.now() - t); } process.stdout.write(JSON.stringify(times));`;
  const viaDaemon = await new Promise((ok, fail) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', legScript], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.on('close', (code) => (code === 0 ? ok(JSON.parse(text)) : fail(new Error(`the daemon's leg exited ${code}`))));
  });
  // 2. The CLI's start: Node itself, and Node plus everything `mem search` imports before it asks the daemon.
  const bare = [];
  const imports = [];
  const loadCli = `await import(${JSON.stringify(join(REPO, 'dist/cli/main.js'))}); await import(${JSON.stringify(join(REPO, 'dist/cli/commands/search.js'))}); await import(${JSON.stringify(join(REPO, 'dist/daemon/client.js'))});`;
  for (let i = 0; i < QUERY_COUNT; i++) {
    bare.push(await timedRun(['-e', '0']));
    imports.push(await timedRun(['--input-type=module', '-e', loadCli]));
  }
  const config = loadConfig(env, { root: ROOT });
  // 3. In-process searchMemories with each port call timed (the daemon's share is end to end minus the CLI's start).
  log('in process: each call of a search');
  const sink = { calls: {} };
  const memory = await openMemory(config, {
    wrapIndex: (index) => timed('index', index, ['open', 'search', 'unitsWithin'], sink),
    wrapEmbedder: (embedder) => timed('embedder', embedder, ['embedQuery'], sink),
  });
  const full = [];
  try {
    for (let i = 0; i < WARMUP + QUERY_COUNT; i++) {
      if (i === WARMUP) sink.calls = {};
      const [query, user] = queryAt(i);
      const t = performance.now();
      await memory.search({ query, user });
      if (i >= WARMUP) full.push(performance.now() - t);
    }
  } finally {
    await memory.close();
  }
  out.loadAverageAtEnd = os.loadavg().map((x) => round(x, 2));
  out.cliEndToEnd = stats(cli);
  out.daemonRoundTrip = stats(viaDaemon);
  out.nodeBare = stats(bare);
  out.cliImports = stats(imports);
  out.inProcess = {
    full: stats(full),
    calls: Object.fromEntries(Object.entries(sink.calls).map(([k, v]) => [k, { ...stats(v), perSearch: round(v.length / QUERY_COUNT, 1) }])),
  };
  if (args.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  else {
    const line = (k, s) => `  ${k.padEnd(34)} p50 ${s.p50} ms  p95 ${s.p95} ms${s.perSearch !== undefined ? `  (${s.perSearch}/search)` : ''}`;
    process.stdout.write(
      [
        `search profile of ${ROOT}, ${QUERY_COUNT} queries, load ${out.loadAverageAtStart.join(' ')} -> ${out.loadAverageAtEnd.join(' ')}`,
        line('mem search, end to end', out.cliEndToEnd),
        line('daemon round trip (warm client)', out.daemonRoundTrip),
        line('node -e 0', out.nodeBare),
        line('node + CLI imports', out.cliImports),
        line('searchMemories in process', out.inProcess.full),
        ...Object.entries(out.inProcess.calls).map(([k, s]) => line(`  ${k}`, s)),
      ].join('\n') + '\n',
    );
  }
}

await main();
