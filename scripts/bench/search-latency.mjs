// Benchmark of where a warm `mem search` spends its time (a new process per search, through the warm search daemon):
// Node's own start, loading the fast path's modules, the socket, the daemon's own time, writing the result; then the
// daemon's work for one search, each call of the index, the model, the files and the access statistics timed in place.
//
// Usage: node scripts/bench/search-latency.mjs --root <root> [--searches 30] [--against <checkout>] [--gap 60] [--json] [--out f]
//        (or `npm run bench:search-latency -- --root ...`).
// <root> is a root kept by `npm run bench -- --files 10000 --synthetic-vectors --skip-rebuild --keep` (its servers'
// home is <root>-servers). --against: another checkout (built: its bin/ and dist/) searched in alternation with this
// one, each through a daemon of its own (its own socket folder) on the same servers and index: A/B on a shared machine.
// Each build's `mem` starts as a user's does: through its bin/mem launcher (a checkout without one: node bin/mem.js),
// with this process's environment, NODE_EXTRA_CA_CERTS included where the host sets it.
// Every search has a query text its daemon has not seen (the 24 bench queries, each with one of five framings).
import { spawn } from 'node:child_process';
import { readFile, readlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { QUERIES, USERS } from './corpus.mjs';
import { defaultsEnv } from './local.mjs';
import { memCommand } from './mem-command.mjs';
import { machine, round, stats } from './stats.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TRACE = join(REPO, 'scripts', 'bench', 'search-trace.mjs');
const FRAMINGS = [(q) => q, (q) => `remind me: ${q}`, (q) => `do you remember ${q}`, (q) => `notes about ${q}`, (q) => `anything on ${q}`];
const QUERY_TEXTS = FRAMINGS.flatMap((frame) => QUERIES.map(frame));

const { values: args } = parseArgs({
  options: {
    root: { type: 'string' },
    searches: { type: 'string', default: '30' },
    against: { type: 'string' },
    'daemon-searches': { type: 'string', default: '20' },
    // A daemon's searches are never back to back: each `mem search` is a new process whose start, modules and exit
    // (60 ms idle) separate two answers. Searched back to back in process, the query's embedding took 7-18 ms more.
    gap: { type: 'string', default: '60' },
    json: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
if (!args.root) throw new Error('--root is required: a root kept by `npm run bench -- --files 10000 --synthetic-vectors --skip-rebuild --keep`');
const ROOT = resolve(args.root);
const SEARCHES = Number(args.searches);
const DAEMON_SEARCHES = Number(args['daemon-searches']);
const GAP_MS = Number(args.gap);
// Two searches per build and round (one traced, one plain), each with a query text of its own.
if (!Number.isInteger(SEARCHES) || SEARCHES < 1 || 2 * SEARCHES > QUERY_TEXTS.length) throw new Error(`--searches: 1 to ${QUERY_TEXTS.length / 2}`);
if (!Number.isInteger(DAEMON_SEARCHES) || DAEMON_SEARCHES < 0 || DAEMON_SEARCHES > QUERY_TEXTS.length) throw new Error('--daemon-searches: 0 to 120');
if (!Number.isFinite(GAP_MS) || GAP_MS < 0) throw new Error('--gap: milliseconds between the in-process searches, 0 or more');

const log = (msg) => process.stderr.write(`[search-latency] ${msg}\n`);

/**
 * A build searched: its checkout, the environment of its `mem` processes (a socket folder, so a daemon, of its own;
 * this process's NODE_EXTRA_CA_CERTS, as a user's shell has it), and how a user starts its `mem` (its launcher, if any).
 */
function build(name, dir) {
  const mem = memCommand(resolve(dir));
  const env = { ...defaultsEnv(), ...mem.env, MEMDIR_SERVER_HOME: `${ROOT}-servers`, XDG_RUNTIME_DIR: `${ROOT}-run-${name}` };
  return { name, dir: resolve(dir), env, mem };
}

/** Runs `mem <args>` of a build (or Node itself, for `file` process.execPath); its stdout, stderr and wall time in ms. */
function run(file, argv, env) {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(file, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', fail);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      if (code !== 0) fail(new Error(`${file} ${argv.join(' ')} exited ${code}: ${err.slice(-1000)}`));
      else done({ out, err, ms });
    });
  });
}

const mem = (b, argv, env = b.env) => run(b.mem.file, [...b.mem.pre, ...argv], env);
const status = async (b) => JSON.parse((await mem(b, ['--root', ROOT, '--json', 'server', 'status'])).out).daemon;

/** Starts the build's daemon with a search and waits until it listens and has warmed every user up: its pid and log. */
async function warmDaemon(b) {
  await mem(b, ['--root', ROOT, '--json', 'search', 'warm up', '--user', USERS[0]]);
  const started = performance.now();
  for (;;) {
    const d = await status(b);
    if (d?.running && d.warming === 0) return { pid: d.pid, log: await readlink(`/proc/${d.pid}/fd/1`) };
    if (performance.now() - started > 300_000) throw new Error(`${b.name}: the daemon did not warm up within 300 s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** One `mem search` through the daemon: wall time, and with the trace, its marks. */
async function search(b, query, user, traced) {
  // The trace is preloaded through NODE_OPTIONS: the launcher passes no option of its own to Node.
  const env = traced ? { ...b.env, NODE_OPTIONS: `${b.env.NODE_OPTIONS ?? ''} --import ${JSON.stringify(TRACE)}` } : b.env;
  const { out, err, ms } = await mem(b, ['--root', ROOT, '--json', 'search', query, '--user', user], env);
  const results = JSON.parse(out).results;
  if (results.length === 0 || results.some((r) => r.user !== user)) throw new Error(`${b.name}: "${query}" for ${user}: no results or another user's`);
  const line = err.split('\n').find((l) => l.startsWith('TRACE '));
  return { ms, trace: line ? JSON.parse(line.slice(6)) : null };
}

/** The time the fast path's modules take to load in a fresh process (all of bin/mem.js's import of it). */
async function importMs(b) {
  const probe = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(join(b.dir, 'dist', 'cli', 'fast-search.js')).href)}); process.stdout.write(String(performance.now() - t));`;
  return Number((await run(process.execPath, ['--input-type=module', '-e', probe], b.env)).out);
}

/**
 * The daemon's own time of its last `n` searches of this root, from its log (`search in <root> (N ms)`), once it is
 * sure the daemon warmed up at the start answered them all (a build meanwhile makes it exit: the next search starts another).
 */
async function daemonOwn(b, daemon, n) {
  const now = await status(b);
  if (now?.pid !== daemon.pid) throw new Error(`${b.name}: its daemon ${daemon.pid} was replaced during the run (rebuilt meanwhile?)`);
  const own = (await readFile(daemon.log, 'utf8'))
    .split('\n')
    .map((l) => (l.startsWith(`search in ${ROOT} (`) ? /\((\d+) ms\)$/.exec(l)?.[1] : undefined))
    .filter((ms) => ms !== undefined)
    .map(Number);
  return own.slice(-n);
}

/** The client's phases of traced searches, from their marks. */
function clientPhases(traced) {
  const at = (name) => traced.map((s) => s.trace[name]);
  const span = (from, to) => stats(traced.map((s) => s.trace[to] - s.trace[from]));
  return {
    nodeStart: stats(at('started')),
    toSocket: span('started', 'connectCalled'),
    connect: span('connectCalled', 'connected'),
    daemonAnswer: span('connected', 'answered'),
    answerToWritten: span('answered', 'written'),
    exitAfterWrite: stats(traced.map((s) => s.ms - s.trace.written)),
  };
}

/** Per search (this checkout's build), each call of the daemon's ports on a timeline: when the first started and the last ended, and how many. */
async function daemonBreakdown(b) {
  // This checkout's build, through the benchmarks' two doors to the product.
  const [{ openMemory }, { loadConfig }] = await Promise.all([import('../../dist/internal.js'), import('memdir')]);
  let events = [];
  let t0 = 0;
  const timed = (label, target, methods) =>
    new Proxy(target, {
      get(obj, key) {
        const value = Reflect.get(obj, key, obj);
        if (typeof value !== 'function') return value;
        if (!methods.includes(key)) return value.bind(obj);
        return (...a) => {
          const start = performance.now() - t0;
          const kind = a[0]?.mode ? ` ${a[0].mode} ${a[0].kind ?? 'unit'}` : '';
          const end = () => events.push({ call: `${label}.${String(key)}${kind}`, start, end: performance.now() - t0 });
          const result = value.apply(obj, a);
          if (result && typeof result.then === 'function') return result.finally(end);
          end();
          return result;
        };
      },
    });
  let model;
  // As the daemon opens a root (cli/commands/server.ts): its own index client, the root on disk already.
  const memory = await openMemory(loadConfig(b.env, { root: ROOT }), {
    indexThroughDaemon: false,
    existingRoot: true,
    wrapIndex: (i) => timed('index', i, ['open', 'search', 'unitsWithin']),
    wrapEmbedder: (e) => timed('model', (model = e), ['embedQuery']),
    onDeps: (d) => {
      d.access = timed('access', d.access, ['get', 'touch']);
      d.files = timed('files', d.files, ['stat', 'read']);
      d.manifest = timed('manifest', d.manifest, ['exists', 'indexInstance', 'load']);
    },
  });
  const runs = [];
  // The embedding server with nothing else running, between the searches: a round trip that embeds nothing (the wire
  // and the HTTP handling) and the same kind of query embedded alone (that plus the model); the step inside the
  // search less the latter is what the search's other work costs it.
  const server = JSON.parse(await readFile(join(b.env.MEMDIR_SERVER_HOME, 'servers', 'embedder.json'), 'utf8'));
  const health = async () => {
    const res = await fetch(`http://127.0.0.1:${server.port}/health`, { headers: { authorization: `Bearer ${server.secret}` } });
    if (!res.ok) throw new Error(`the embedding server's /health answered ${res.status}`);
    await res.text();
  };
  const alone = { roundTrip: [], embedding: [] };
  const timedMs = async (f) => {
    await new Promise((r) => setTimeout(r, GAP_MS));
    const s = performance.now();
    await f();
    return performance.now() - s;
  };
  try {
    for (let i = 0; i < 3; i++) await memory.search({ query: `warm up ${i}`, user: USERS[i], k: 8 });
    for (let i = 0; i < DAEMON_SEARCHES; i++) {
      // Texts of their own here too: the last framing's queries, in reverse order, none searched above.
      const query = `which ${QUERY_TEXTS[QUERY_TEXTS.length - 1 - i]}`;
      alone.roundTrip.push(await timedMs(health));
      alone.embedding.push(await timedMs(() => model.embedQuery(`what about ${QUERY_TEXTS[i]}`)));
      await new Promise((r) => setTimeout(r, GAP_MS));
      events = [];
      t0 = performance.now();
      const results = await memory.search({ query, user: USERS[i % USERS.length], k: 8 });
      const searchMs = performance.now() - t0;
      const s = performance.now();
      JSON.stringify({ ok: true, results });
      runs.push({ searchMs, serialiseMs: performance.now() - s, events });
    }
  } finally {
    await memory.close();
  }
  const calls = {};
  for (const { events: evs } of runs) {
    const byCall = new Map();
    for (const e of evs) byCall.set(e.call, [...(byCall.get(e.call) ?? []), e]);
    for (const [call, list] of byCall) {
      (calls[call] ??= []).push({
        count: list.length,
        start: Math.min(...list.map((e) => e.start)),
        end: Math.max(...list.map((e) => e.end)),
        sum: list.reduce((n, e) => n + e.end - e.start, 0),
      });
    }
  }
  const p50 = (list, key) => stats(list.map((x) => x[key])).p50;
  return {
    searches: runs.length,
    gapMs: GAP_MS,
    embeddingServerAlone: { roundTrip: stats(alone.roundTrip), queryEmbedding: stats(alone.embedding) },
    search: stats(runs.map((r) => r.searchMs)),
    serialise: stats(runs.map((r) => r.serialiseMs)),
    calls: Object.fromEntries(
      Object.entries(calls)
        .sort((a, b) => p50(a[1], 'start') - p50(b[1], 'start'))
        .map(([call, list]) => [
          call,
          { inSearches: list.length, count: p50(list, 'count'), start: p50(list, 'start'), end: p50(list, 'end'), summed: p50(list, 'sum') },
        ]),
    ),
  };
}

async function main() {
  const builds = [build('this', REPO), ...(args.against ? [build('against', args.against)] : [])];
  const out = {
    date: new Date().toISOString(),
    command: `node scripts/bench/search-latency.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    machine: machine(),
    loadAverageAtStart: os.loadavg().map((x) => round(x, 2)),
    root: ROOT,
    builds: {},
  };
  const daemons = {};
  for (const b of builds) {
    log(`${b.name}: starting and warming its daemon (${b.dir})`);
    daemons[b.name] = await warmDaemon(b);
  }
  const samples = Object.fromEntries(builds.map((b) => [b.name, { plain: [], traced: [], imports: [] }]));
  const bare = [];
  const bareWithoutCaCerts = [];
  log(`${SEARCHES} rounds: per build one plain and one traced search, and the fast path's import; the builds' order alternates`);
  for (let i = 0; i < SEARCHES; i++) {
    const user = USERS[i % USERS.length];
    bare.push((await run(process.execPath, ['-e', '0'], builds[0].env)).ms);
    // Node 20 reads NODE_EXTRA_CA_CERTS's certificates at every start: its share of the start, where it is set.
    if (process.env.NODE_EXTRA_CA_CERTS) {
      const { NODE_EXTRA_CA_CERTS: _, ...env } = builds[0].env;
      bareWithoutCaCerts.push((await run(process.execPath, ['-e', '0'], env)).ms);
    }
    for (const b of i % 2 === 0 ? builds : [...builds].reverse()) {
      const s = samples[b.name];
      s.plain.push((await search(b, QUERY_TEXTS[2 * i], user, false)).ms);
      s.traced.push(await search(b, QUERY_TEXTS[2 * i + 1], user, true));
      s.imports.push(await importMs(b));
    }
  }
  out.nodeBare = stats(bare);
  if (bareWithoutCaCerts.length > 0) out.nodeBareWithoutExtraCaCerts = stats(bareWithoutCaCerts);
  for (const b of builds) {
    const s = samples[b.name];
    out.builds[b.name] = {
      dir: b.dir,
      endToEnd: stats(s.plain),
      endToEndTraced: stats(s.traced.map((t) => t.ms)),
      fastPathImport: stats(s.imports),
      client: clientPhases(s.traced),
      daemonOwn: stats(await daemonOwn(b, daemons[b.name], 2 * SEARCHES)),
    };
  }
  if (args.against) {
    // Each round searched both builds back to back: the median of the round's differences is the least moved by the load.
    const paired = (a, b) => stats(a.map((x, i) => x - b[i])).p50;
    const [own, base] = [samples.this, samples.against];
    out.ratioThisToAgainst = round(out.builds.this.endToEnd.p50 / out.builds.against.endToEnd.p50, 3);
    out.pairedMedianDifference = {
      endToEnd: paired(own.plain, base.plain),
      endToEndTraced: paired(
        own.traced.map((t) => t.ms),
        base.traced.map((t) => t.ms),
      ),
      daemonAnswer: paired(
        own.traced.map((t) => t.trace.answered - t.trace.connected),
        base.traced.map((t) => t.trace.answered - t.trace.connected),
      ),
      toSocket: paired(
        own.traced.map((t) => t.trace.connectCalled - t.trace.started),
        base.traced.map((t) => t.trace.connectCalled - t.trace.started),
      ),
      fastPathImport: paired(own.imports, base.imports),
    };
  }
  if (DAEMON_SEARCHES > 0) {
    log(`the daemon's work of ${DAEMON_SEARCHES} searches, in this process, each call timed`);
    out.daemonBreakdown = await daemonBreakdown(builds[0]);
  }
  out.loadAverageAtEnd = os.loadavg().map((x) => round(x, 2));
  if (args.out) await writeFile(args.out, `${JSON.stringify(out, null, 2)}\n`);
  process.stdout.write(args.json ? `${JSON.stringify(out, null, 2)}\n` : `${render(out)}\n`);
}

const ms = (s) => `p50 ${s.p50} ms, p95 ${s.p95} ms (n ${s.n})`;

function render(o) {
  const lines = [
    `warm mem search at ${o.root}, ${o.date}`,
    `machine: ${o.machine.cpuModel} x${o.machine.cpuCount}, node ${o.machine.node}; load ${o.loadAverageAtStart.join(' ')} -> ${o.loadAverageAtEnd.join(' ')}`,
    `node -e 0: ${ms(o.nodeBare)}${o.nodeBareWithoutExtraCaCerts ? `; without NODE_EXTRA_CA_CERTS: ${ms(o.nodeBareWithoutExtraCaCerts)}` : ''}`,
  ];
  for (const [name, b] of Object.entries(o.builds)) {
    const c = b.client;
    lines.push(
      `\n${name} (${b.dir})`,
      `  mem search end to end        ${ms(b.endToEnd)}   (traced: ${ms(b.endToEndTraced)})`,
      `  process start to first line  ${ms(c.nodeStart)}`,
      `  to the socket (modules, options, configuration)  ${ms(c.toSocket)}; of which the fast path's import alone ${ms(b.fastPathImport)}`,
      `  connect                      ${ms(c.connect)}`,
      `  the daemon's answer          ${ms(c.daemonAnswer)}; its own time (its log) ${ms(b.daemonOwn)}`,
      `  answer to result written     ${ms(c.answerToWritten)}`,
      `  written to exit              ${ms(c.exitAfterWrite)}`,
    );
  }
  if (o.ratioThisToAgainst !== undefined) {
    const d = o.pairedMedianDifference;
    lines.push(
      `\nend to end p50, this / against: ${o.ratioThisToAgainst}`,
      `median of each round's difference, this - against (ms): end to end ${d.endToEnd} (traced ${d.endToEndTraced}); to the socket ${d.toSocket}; ` +
        `fast path's import ${d.fastPathImport}; the daemon's answer ${d.daemonAnswer}`,
    );
  }
  const d = o.daemonBreakdown;
  if (d) {
    lines.push(
      `\nthe daemon's work per search (this build, in process, x${d.searches}, ${d.gapMs} ms apart): ${ms(d.search)}; serialising the answer ${ms(d.serialise)}`,
      `  the embedding server alone: a round trip that embeds nothing ${ms(d.embeddingServerAlone.roundTrip)}; a query embedded ${ms(d.embeddingServerAlone.queryEmbedding)}`,
    );
    lines.push('  call (p50 of: calls per search, first start, last end, summed time; ms from the search start)');
    for (const [call, c] of Object.entries(d.calls))
      lines.push(`  ${call.padEnd(28)} x${c.count}  ${c.start} -> ${c.end}  (${c.summed})  in ${c.inSearches} searches`);
  }
  return lines.join('\n');
}

await main();
