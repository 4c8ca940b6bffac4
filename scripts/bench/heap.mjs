// Benchmark of the heap steering of `mem reindex` (src/cli/heap-reclaim.ts: full collections as the heap grows, and the
// young-generation cap it starts): the same full index run WITH the steering and WITHOUT it, alternated, on a generated
// corpus whose vectors all come from the synthetic vector cache (no model time). Measures, for each run of the reindex
// process: its peak RSS and CPU time (user + system, GNU time), its wall time, and V8's collections (--trace-gc:
// scavenges, full collections, of which requested by the steering, and their summed pauses, every isolate counted).
//
// Usage: node scripts/bench/heap.mjs [--files 10000] [--runs 2] [--arms with,without] [--json] [--out result.json]
//        (or `npm run bench:heap -- --files 10000`). Needs a build and the provisioned runtime.
//        --arms with,without,no-young-cap adds the collections alone (the young generation left to V8).
//
// The "without" arm runs a copy of bin/ and dist/ in a temporary folder in which dist/cli/heap-reclaim.js is replaced by a
// pass-through (the Progress it is given, unchanged: what the product does where V8 has no gc()); python/ and
// node_modules/ are links to this checkout's. "no-young-cap" replaces dist/cli/young-generation.js alike. So the product
// has no knob for it, and the arms run the same code otherwise, in their own process, measured alike. Each run gets a fresh copy of the corpus (files and vector cache)
// and its own Milvus Lite, started by `mem setup` and quiet before the reindex starts: no run pays for another's
// collection. The arms alternate with, without, without, with, ... (the order reversed every round) so that a drift of the machine's load weighs on both.
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { generateCorpus } from './corpus.mjs';
import { defaultsEnv, memJson, waitForQuietServer } from './local.mjs';
import { machine, round } from './stats.mjs';
import { chunkTexts, fillCacheWithRandomVectors } from './synthetic.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const STEERING = join('dist', 'cli', 'heap-reclaim.js');
const YOUNG_CAP = join('dist', 'cli', 'young-generation.js');

const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '2' }, // per arm
    arms: { type: 'string', default: 'with,without' },
    json: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const FILES = Number(args.files);
const RUNS = Number(args.runs);
if (!Number.isInteger(FILES) || FILES < 10) throw new Error('--files must be a whole number >= 10');
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error('--runs must be a whole number >= 1');
const ARMS = args.arms.split(',');
if (!ARMS.includes('with') || ARMS.some((a) => !['with', 'without', 'no-young-cap'].includes(a))) {
  throw new Error('--arms: "with" and any of "without", "no-young-cap"');
}

const log = (msg) => process.stderr.write(`[bench:heap] ${msg}\n`);

/** What the "without" arm's dist/cli/heap-reclaim.js becomes: the same export, handing the progress through. */
const PASS_THROUGH = `// The "without" arm of scripts/bench/heap.mjs: no heap steering, the progress handed through.
export function reclaimingHeap(progress) {
  return { ...progress, start: progress.start.bind(progress), tick: progress.tick.bind(progress), stop: progress.stop.bind(progress), end() {} };
}
`;

/** What the "no-young-cap" arm's dist/cli/young-generation.js becomes: the same export, doing nothing. */
const NO_CAP = `// The "no-young-cap" arm of scripts/bench/heap.mjs: V8 sizes its young generation itself.
export function capYoungGeneration() {}
`;

/** A copy of the CLI with `module` (under dist/) replaced by `text`, which must export `name`; returns its folder. */
async function copyWith(module, name, text) {
  const original = await readFile(join(REPO, module), 'utf8');
  if (!new RegExp(`export function ${name}\\(`).test(original)) throw new Error(`${module} no longer exports ${name}: nothing to compare`);
  const dir = await mkdtemp(join(os.tmpdir(), 'memdir-heap-cli-'));
  for (const part of ['bin', 'dist', 'package.json']) await cp(join(REPO, part), join(dir, part), { recursive: true });
  for (const part of ['python', 'node_modules']) await symlink(join(REPO, part), join(dir, part));
  await writeFile(join(dir, module), text);
  return dir;
}

/** The CLI each arm runs. */
async function armClis() {
  const cli = { with: REPO };
  if (ARMS.includes('without')) cli.without = await copyWith(STEERING, 'reclaimingHeap', PASS_THROUGH);
  if (ARMS.includes('no-young-cap')) cli['no-young-cap'] = await copyWith(YOUNG_CAP, 'capYoungGeneration', NO_CAP);
  return cli;
}

/** A V8 --trace-gc line: the collection's kind and its pause (ms); the reason ends the line. */
const GC_LINE = /\d+ ms: (Scavenge|Minor Mark-(?:Compact|Sweep)|Mark-(?:Compact|Sweep))\b.*?MB, ([\d.]+) \/ [\d.]+ ms/;

/** Counts the collections in --trace-gc output; `requested` are the ones gc() asked for (V8's reason "testing"). */
function countCollections(stdout) {
  const gcs = { young: 0, full: 0, requested: 0, pauseMs: 0 };
  for (const line of stdout.split('\n')) {
    const m = GC_LINE.exec(line);
    if (!m) continue;
    if (m[1].startsWith('Mark-')) gcs.full++;
    else gcs.young++;
    if (line.includes(') testing;')) gcs.requested++;
    gcs.pauseMs += Number(m[2]);
  }
  gcs.pauseMs = round(gcs.pauseMs, 0);
  return gcs;
}

/** The report's JSON line (--trace-gc lines share stdout, so a line may carry a collection's text before it). */
function reportOf(stdout) {
  for (const line of stdout.split('\n').reverse()) {
    const at = line.indexOf('{"');
    if (at < 0) continue;
    try {
      return JSON.parse(line.slice(at));
    } catch {
      /* not the report */
    }
  }
  return null;
}

/** `mem --root <root> --json reindex` from `cliDir`, under GNU time and --trace-gc. */
function timedReindex(cliDir, root, env) {
  return new Promise((done, fail) => {
    const argv = ['-f', 'HEAPBENCH %M %U %S', process.execPath, '--trace-gc', join(cliDir, 'bin', 'mem.js'), '--root', root, '--json', 'reindex'];
    const t0 = performance.now();
    const child = spawn('/usr/bin/time', argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', fail);
    child.on('close', (code) => {
      const seconds = (performance.now() - t0) / 1000;
      const time = /HEAPBENCH (\d+) ([\d.]+) ([\d.]+)\s*$/.exec(err);
      const report = reportOf(out);
      if (code !== 0 || !time || !report) return fail(new Error(`mem reindex exited ${code}\nstdout: ${out.slice(-1500)}\nstderr: ${err.slice(-1500)}`));
      done({
        report,
        seconds: round(seconds, 1),
        peakRssMiB: round(Number(time[1]) / 1024, 0),
        cpuSeconds: round(Number(time[2]) + Number(time[3]), 1),
        gcs: countCollections(out),
      });
    });
  });
}

/** One full index of a fresh copy of `corpus`, with its own servers started by `cliDir`'s CLI. */
async function oneRun(arm, cliDir, corpus, expected) {
  const root = await mkdtemp(join(os.tmpdir(), `memdir-heap-${arm}-`));
  const env = { ...defaultsEnv(), MEMDIR_SERVER_HOME: `${root}-servers` };
  const mem = (cliArgs) => memJson(root, cliArgs, env);
  try {
    await cp(corpus, root, { recursive: true });
    await mem(['setup']);
    const quiet = await waitForQuietServer(root);
    const load = round(os.loadavg()[0], 1);
    log(`${arm}: full reindex (Milvus Lite ${quiet.quiet ? 'quiet' : 'still busy'} after ${quiet.seconds} s, load ${load})`);
    const r = await timedReindex(cliDir, root, env);
    const problems = [];
    if (r.report.files !== FILES) problems.push(`files ${r.report.files}, generated ${FILES}`);
    if (r.report.upserted !== expected) problems.push(`upserted ${r.report.upserted}, expected ${expected}`);
    if (r.report.embedded !== 0) problems.push(`embedded ${r.report.embedded}: a vector missed the cache`);
    if ((arm !== 'without') !== r.gcs.requested > 0) problems.push(`${r.gcs.requested} requested collections in the "${arm}" arm`);
    if (problems.length) throw new Error(`${arm}: ${problems.join('; ')}`);
    log(`${arm}: ${r.seconds} s, peak RSS ${r.peakRssMiB} MiB, CPU ${r.cpuSeconds} s, GCs ${JSON.stringify(r.gcs)}`);
    const { report, ...figures } = r;
    return { arm, ...figures, rows: report.upserted, loadAtStart: load };
  } finally {
    await memJson(root, ['server', 'stop', '--all'], env).catch(() => undefined);
    for (const dir of [root, `${root}-servers`]) await rm(dir, { recursive: true, force: true });
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Medians per arm, and each arm over "with" as a ratio (above 1: the steering saves that share). */
function summary(runs) {
  const keys = ['peakRssMiB', 'seconds', 'cpuSeconds'];
  const arm = (name) => {
    const rs = runs.filter((r) => r.arm === name);
    const m = Object.fromEntries(keys.map((k) => [k, round(median(rs.map((r) => r[k])), 1)]));
    for (const k of ['young', 'full', 'requested', 'pauseMs']) m[k] = round(median(rs.map((r) => r.gcs[k])), 0);
    return m;
  };
  const medians = Object.fromEntries(ARMS.map((a) => [a, arm(a)]));
  const overWith = Object.fromEntries(
    ARMS.filter((a) => a !== 'with').map((a) => [a, Object.fromEntries(keys.map((k) => [k, round(medians[a][k] / medians.with[k], 2)]))]),
  );
  return { medians, overWith };
}

function render(out) {
  const g = (r) => `${r.gcs.young} / ${r.gcs.full} (${r.gcs.requested}) / ${r.gcs.pauseMs} ms`;
  const lines = [
    `mem reindex, full index of ${FILES} files (${out.rows} rows, vectors from the cache), ${RUNS} run(s) per arm (${ARMS.join(', ')}), alternated`,
    `${out.date}, ${out.machine.cpuCount} × ${out.machine.cpuModel}, load average ${out.loadAverageAtStart.join(' ')} at the start, ${out.loadAverageAtEnd.join(' ')} at the end`,
    '',
    '| run | arm | peak RSS | wall | CPU | GCs: young / full (requested) / pauses | load |',
    '|---|---|---|---|---|---|---|',
    ...out.runs.map((r, i) => `| ${i + 1} | ${r.arm} | ${r.peakRssMiB} MiB | ${r.seconds} s | ${r.cpuSeconds} s | ${g(r)} | ${r.loadAtStart} |`),
  ];
  const { medians, overWith } = out.summary;
  lines.push('');
  for (const [a, m] of Object.entries(medians)) lines.push(`medians, ${a}: ${m.peakRssMiB} MiB, ${m.seconds} s wall, ${m.cpuSeconds} s CPU`);
  for (const [a, r] of Object.entries(overWith)) lines.push(`${a} / with: peak RSS ${r.peakRssMiB}×, wall ${r.seconds}×, CPU ${r.cpuSeconds}×`);
  return lines.join('\n');
}

async function main() {
  const out = {
    date: new Date().toISOString(),
    command: `node scripts/bench/heap.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    machine: machine(),
    loadAverageAtStart: os.loadavg().map((x) => round(x, 2)),
    files: FILES,
    rows: null,
    runs: [],
  };
  const corpus = await mkdtemp(join(os.tmpdir(), 'memdir-heap-corpus-'));
  const cli = await armClis();
  try {
    log(`generating ${FILES} files and their synthetic vectors in ${corpus}`);
    const { files } = await generateCorpus(corpus, FILES);
    const chunked = await chunkTexts(corpus, files);
    out.rows = chunked.reduce((n, f) => n + f.records.length, 0);
    await fillCacheWithRandomVectors(corpus, chunked);
    for (let i = 0; i < RUNS; i++) {
      const order = i % 2 === 0 ? ARMS : [...ARMS].reverse();
      for (const arm of order) out.runs.push(await oneRun(arm, cli[arm], corpus, out.rows));
    }
  } finally {
    for (const dir of [corpus, ...Object.values(cli).filter((d) => d !== REPO)]) await rm(dir, { recursive: true, force: true });
  }
  out.loadAverageAtEnd = os.loadavg().map((x) => round(x, 2));
  out.summary = summary(out.runs);
  if (args.out) await writeFile(args.out, `${JSON.stringify(out, null, 2)}\n`);
  process.stdout.write(args.json ? `${JSON.stringify(out, null, 2)}\n` : `${render(out)}\n`);
}

await main();
