// Benchmark of the real `mem` CLI on a generated corpus. Measures: the full index and its share of a raw bulk insert,
// the no-op and one-edit reindex (with and without the search daemon), the rebuild from the vector cache, warm `mem search`
// end to end, raw embedder throughput, the peak RSS of each `mem` process and of Milvus Lite.
//
// Usage: node scripts/bench/run.mjs [--files 1000] [--searches 20] [--synthetic-vectors] [--skip-rebuild] [--json] [--keep] [--out result.json]
//                                   [--compare other-run.json]
//        (or `npm run bench -- --files 200`). Needs a build (`npx tsc -p tsconfig.json`).
//
// --synthetic-vectors fills the vector cache with random unit vectors for every chunk before the full
// index, so that corpora too large to embed on this machine (10,000+ files) measure memdir's own cost:
// scan, parse, chunk, hash, upsert, flush, no-op and edit reindex, search latency, memory. The edit
// step still embeds its changed chunk with the real model; dense rankings are meaningless, latencies are not.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { QUERIES, USERS, generateCorpus } from './corpus.mjs';
import { STRIPPED_ENV, defaultsEnv, du, embed, serverCpuShare, waitForQuietServer as waitForQuiet } from './local.mjs';
import { rawInsertRate } from './raw-insert.mjs';
import { chunkTexts, fillCacheWithRandomVectors } from './synthetic.mjs';
import { machine, round, stats } from './stats.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
// What a user runs: the launcher npm links as `mem` (a fast path skips the host's extra CA bundle), with this Node.
const MEM = join(REPO, 'bin', 'mem');
const EMBED_BATCH = 32;
const EMBED_BATCHES = 5; // raw-throughput sample: 5 batches of 32 texts, after one warm-up batch

const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: '1000' },
    searches: { type: 'string', default: '20' },
    json: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    out: { type: 'string' }, // also write the JSON result to this file
    'synthetic-vectors': { type: 'boolean', default: false },
    'skip-rebuild': { type: 'boolean', default: false }, // the diagnostic rebuild takes as long as the full index
    // An --out file of a run at another size: prints how the full index grew with the files (linear: 5x the files, <= 6x the time).
    compare: { type: 'string' },
  },
});
const FILES = Number(args.files);
const SYNTHETIC = args['synthetic-vectors'];
// Peak resident memory of each `mem` process, where GNU time is installed.
const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
const SEARCHES = Number(args.searches);
if (!Number.isInteger(FILES) || FILES < 10) throw new Error('--files must be a whole number >= 10');
if (!Number.isInteger(SEARCHES) || SEARCHES < 1) throw new Error('--searches must be a whole number >= 1');

// The embedded default with default settings: see STRIPPED_ENV.
const childEnv = { ...defaultsEnv(), MEMDIR_NODE: process.execPath };
const strippedPresent = STRIPPED_ENV.filter((k) => process.env[k] !== undefined);

const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);

class BenchFailure extends Error {}

/** Runs `bin/mem --root <root> --json ...args`; returns the parsed JSON result and wall time. */
function mem(root, cliArgs, { allowFail = false } = {}) {
  return new Promise((resolvePromise, reject) => {
    const argv = [MEM, '--root', root, '--json', ...cliArgs];
    const t0 = performance.now();
    // GNU time adds ~1 ms and prints "MAXRSS <KiB>" as the last stderr line.
    const child = GNU_TIME
      ? spawn(GNU_TIME, ['-f', 'MAXRSS %M', ...argv], { cwd: REPO, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(argv[0], argv.slice(1), { cwd: REPO, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      const line = out.trim().split('\n').filter(Boolean).pop() ?? '';
      let result = null;
      try {
        result = JSON.parse(line);
      } catch {
        /* reported below */
      }
      if ((code !== 0 || result === null) && !allowFail) {
        reject(new BenchFailure(`mem ${cliArgs.join(' ')} exited with ${code}\nstdout: ${out.slice(-2000)}\nstderr: ${err.slice(-2000)}`));
        return;
      }
      const rss = /MAXRSS (\d+)\s*$/.exec(err);
      resolvePromise({ result, ms, code, stderr: err, peakRssMiB: rss ? round(Number(rss[1]) / 1024, 0) : null });
    });
  });
}

/** Waits until the root's Milvus Lite server is quiet, and says how long that took. */
async function waitForQuietServer(root) {
  const q = await waitForQuiet(root);
  log(`Milvus Lite ${q.quiet ? 'quiet' : 'still busy'} after ${q.seconds} s`);
  return q;
}

/**
 * Appends a sentence to the last paragraph of `target` and times `mem reindex`, checking that it embeds exactly the
 * changed unit and the windows that contain it. The Milvus Lite server's CPU just before is recorded with it.
 */
async function editOneParagraph(root, target, chunked, check) {
  const abs = join(root, target.path);
  const before = await readFile(abs, 'utf8');
  const parts = before.split('\n\n');
  const last = parts.length - 1; // the last body paragraph
  parts[last] = parts[last].replace(/\n$/, '') + ' Update: this was confirmed again during the latest review.\n';
  await writeFile(abs, parts.join('\n\n'), 'utf8');
  const [afterChunks] = await chunkTexts(root, [target]);
  const beforeHashes = new Set(chunked.find((c) => c.path === target.path).records.map((r) => r.textHash));
  const expectedEmbedded = afterChunks.records.filter((r) => !beforeHashes.has(r.textHash)).length;
  const milvusCpuBefore = await serverCpuShare(root);
  log(`edit one paragraph of ${target.path}, reindex (Milvus Lite's CPU the second before: ${milvusCpuBefore ?? '-'} of a core)`);
  const edit = await mem(root, ['reindex']);
  check(
    // The paragraph's unit and the windows containing it (at most three: three units each, stride 1).
    'one-paragraph edit embeds exactly the changed unit and its windows',
    edit.result.embedded === expectedEmbedded && expectedEmbedded >= 1 && expectedEmbedded <= 4,
    `embedded ${edit.result.embedded}, expected ${expectedEmbedded}`,
  );
  return {
    file: target.path,
    seconds: round(edit.ms / 1000, 2),
    embedded: edit.result.embedded,
    expectedEmbedded,
    upserted: edit.result.upserted,
    deleted: edit.result.deleted,
    skipped: edit.result.skipped,
    peakRssMiB: edit.peakRssMiB,
    milvusCpuBefore,
    loadAverage: round(os.loadavg()[0], 2),
  };
}

/** Peak resident memory (VmHWM) of the root's managed servers, read from /proc before they stop. */
async function serverPeaks(root) {
  const out = {};
  for (const name of ['milvus-lite', 'embedder']) {
    try {
      const rec = JSON.parse(await readFile(join(`${root}-servers`, 'servers', `${name}.json`), 'utf8'));
      const status = await readFile(`/proc/${rec.pid}/status`, 'utf8');
      const kb = /VmHWM:\s+(\d+)/.exec(status);
      if (kb) out[name] = round(Number(kb[1]) / 1024, 0);
    } catch {
      /* not running, or no /proc */
    }
  }
  return out;
}

/** The full index of this run against a run at another size: time and rows grown against files grown. */
async function scaling(file, out, check) {
  const other = JSON.parse(await readFile(file, 'utf8'));
  const [small, large] = other.corpus.files <= FILES ? [other, out] : [out, other];
  const s = {
    against: file,
    files: [small.corpus.files, large.corpus.files],
    filesRatio: round(large.corpus.files / small.corpus.files, 2),
    rowsRatio: round(large.fullIndex.upserted / small.fullIndex.upserted, 2),
    timeRatio: round(large.fullIndex.seconds / small.fullIndex.seconds, 2),
    rawInsertTimeRatio: small.rawInsert && large.rawInsert ? round(large.rawInsert.seconds / small.rawInsert.seconds, 2) : null,
  };
  // The bound: 50,000 files in at most 6x the time of 10,000 (1.2x the file ratio).
  check('full index grows at most 1.2x as fast as the files', s.timeRatio <= 1.2 * s.filesRatio, `${s.timeRatio}x the time for ${s.filesRatio}x the files`);
  return s;
}

function table(rows) {
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => (v === undefined ? `\n${k}` : `  ${k.padEnd(w)}  ${v}`)).join('\n');
}

async function main() {
  const startedAt = new Date().toISOString();
  const loadBefore = os.loadavg().map((x) => round(x, 2));
  const root = await mkdtemp(join(os.tmpdir(), 'memdir-bench-'));
  // The run's own shared servers (records and Milvus Lite data), beside the root: measured alone, removed with it.
  childEnv.MEMDIR_SERVER_HOME = `${root}-servers`;
  const out = {
    date: startedAt,
    command: `node scripts/bench/run.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    machine: machine(),
    loadAverageAtStart: loadBefore,
    root,
    strippedEnv: strippedPresent,
    corpus: null,
    setup: null,
    fullIndex: null,
    noopReindex: null,
    noopReindexServerIdle: null,
    editReindex: null,
    editServerIdle: null,
    editThroughDaemon: null,
    search: null,
    rawEmbedding: null,
    rawInsert: null,
    rebuildFromCache: null,
    status: null,
    disk: null,
    checks: [],
  };
  const check = (name, ok, detail) => {
    out.checks.push({ name, ok, detail });
    if (!ok) log(`CHECK FAILED: ${name}: ${detail}`);
  };
  let serversMayRun = false;
  let failure = null;
  try {
    if (strippedPresent.length) log(`not passing ${strippedPresent.join(', ')} to mem (benchmarking the embedded default)`);

    // 0. Corpus. Files are written straight to disk: no `mem add`, so no git commits (MEM_GIT is irrelevant here).
    log(`generating ${FILES} memory files in ${root}`);
    let t = performance.now();
    const { files, summary } = await generateCorpus(root, FILES);
    const chunked = await chunkTexts(root, files);
    const expectedChunks = chunked.reduce((n, f) => n + f.records.length, 0);
    const uniqueTexts = new Set(chunked.flatMap((f) => f.records.map((r) => r.textHash))).size;
    out.corpus = {
      ...summary,
      expectedChunks,
      uniqueChunkTexts: uniqueTexts,
      avgChunkChars: Math.round(chunked.reduce((n, f) => n + f.records.reduce((m, r) => m + r.content.length, 0), 0) / expectedChunks),
      generateSeconds: round((performance.now() - t) / 1000, 2),
    };

    if (SYNTHETIC) {
      log(`filling the vector cache with ${uniqueTexts} synthetic vectors`);
      out.syntheticVectors = await fillCacheWithRandomVectors(root, chunked);
    }

    // CLI start-up cost (node + commander, no servers touched), for reading the end-to-end latencies.
    const startup = [];
    for (let i = 0; i < 5; i++) startup.push((await mem(root, ['server', 'status'])).ms);
    out.cliStartupMs = stats(startup);

    // 1. Servers: `mem setup` (runtime already provisioned: starts Milvus Lite and the embedder). Not in the timings below.
    log('mem setup (starting Milvus Lite and the embedding server)');
    serversMayRun = true;
    const setup = await mem(root, ['setup']);
    out.setup = { seconds: round(setup.ms / 1000, 2), servers: setup.result.servers };

    // 2. Full index, once Milvus Lite is quiet (a server just started may still be loading or compacting: the full
    //    index and the raw insert each start on a quiet server, so neither pays for the other's background work).
    const quietBeforeFull = await waitForQuietServer(root);
    log('full reindex');
    const full = await mem(root, ['reindex']);
    const fr = full.result;
    const fullSec = full.ms / 1000;
    out.fullIndex = {
      files: fr.files,
      chunks: fr.chunks,
      embedded: fr.embedded,
      upserted: fr.upserted,
      errors: fr.errors.length,
      seconds: round(fullSec, 2),
      chunksPerSecond: round((SYNTHETIC ? fr.upserted : fr.embedded) / fullSec, 1),
      filesPerSecond: round(fr.files / fullSec, 1),
      peakRssMiB: full.peakRssMiB,
      quietWaitSeconds: quietBeforeFull.seconds,
    };
    check('full index sees every file', fr.files === FILES, `files ${fr.files}, generated ${FILES}`);
    check('full index chunk count matches memdir chunker', fr.chunks === expectedChunks, `chunks ${fr.chunks}, expected ${expectedChunks}`);
    if (SYNTHETIC) check('full index takes every vector from the cache', fr.embedded === 0, `embedded ${fr.embedded}`);
    else check('full index embeds every distinct text once', fr.embedded === uniqueTexts, `embedded ${fr.embedded}, distinct texts ${uniqueTexts}`);
    check('full index has no file errors', fr.errors.length === 0, JSON.stringify(fr.errors.slice(0, 3)));

    // 2b. The engine alone: the same rows bulk-inserted into the same server, next to memdir's rate.
    //     It too waits for a quiet server: right after the full index, Milvus Lite compacts and indexes what it wrote.
    const quietBeforeRaw = await waitForQuietServer(root);
    // Milvus Lite's peak while it holds this root's collection alone (the raw insert below adds a second copy of the rows).
    out.serverPeakOneRootMiB = await serverPeaks(root);
    log(`raw bulk insert of the same ${expectedChunks} rows into the same Milvus Lite`);
    out.rawInsert = { ...(await rawInsertRate(root, chunked, childEnv)), quietWaitSeconds: quietBeforeRaw.seconds };
    out.fullIndex.shareOfRawInsert = round(out.fullIndex.upserted / fullSec / out.rawInsert.rowsPerSecond, 2);
    if (SYNTHETIC) check('full index runs at >= 50 % of the raw insert rate', out.fullIndex.shareOfRawInsert >= 0.5, `${out.fullIndex.shareOfRawInsert}`);

    if (args.compare) out.scaling = await scaling(args.compare, out, check);

    // 3. No-op reindex: nothing changed, so nothing may be embedded.
    log('no-op reindex');
    const noop = await mem(root, ['reindex']);
    out.noopReindex = {
      seconds: round(noop.ms / 1000, 2),
      embedded: noop.result.embedded,
      upserted: noop.result.upserted,
      skipped: noop.result.skipped,
      peakRssMiB: noop.peakRssMiB,
    };
    check('no-op reindex embeds nothing', noop.result.embedded === 0, `embedded ${noop.result.embedded}`);
    if (noop.result.embedded !== 0) throw new BenchFailure(`no-op reindex embedded ${noop.result.embedded} chunks (expected 0): incremental sync is broken`);
    check('no-op reindex upserts nothing', noop.result.upserted === 0, `upserted ${noop.result.upserted}`);

    // 4. Edit one paragraph of one file (an English file of 2+ paragraphs, no headings, short), then reindex. No search
    //    daemon runs yet: the `mem` process writes with its own Milvus client (4b, after the searches, with the daemon).
    const editable = files.filter((f) => f.lang === 'en' && f.paragraphs >= 2 && f.headings === 0 && f.bodyChars < 900 && f.type !== 'procedural');
    out.editReindex = await editOneParagraph(root, editable[0] ?? files[0], chunked, check);

    // 4a. The same kind of edit of a third file, no daemon either, once Milvus Lite is idle: step 4 is the first write
    //     after the full index and the raw insert, while the server may still compact and index what they wrote
    //     (a user's edit right after a full index pays that too); this one waits (at most 600 s) until it is quiet.
    const quiet = await waitForQuietServer(root);
    // 4a'. The no-op again, on the quiet server (step 3's runs while Milvus Lite compacts what the raw insert wrote and
    //      dropped): both are reported, `noopReindex` stays the one right after the raw insert.
    const idleNoop = await mem(root, ['reindex']);
    out.noopReindexServerIdle = {
      seconds: round(idleNoop.ms / 1000, 2),
      embedded: idleNoop.result.embedded,
      upserted: idleNoop.result.upserted,
      peakRssMiB: idleNoop.peakRssMiB,
      quietWaitSeconds: quiet.seconds,
      quiet: quiet.quiet,
    };
    check('no-op reindex on a quiet server upserts nothing', idleNoop.result.upserted === 0, `upserted ${idleNoop.result.upserted}`);
    out.editServerIdle = { ...(await editOneParagraph(root, editable[2] ?? files[2], chunked, check)), quietWaitSeconds: quiet.seconds, quiet: quiet.quiet };

    // 5. Searches, end to end through the CLI. The first search runs in process and starts the search daemon. Then,
    //    once it listens, the first searches after a start: one per user, timed and reported apart (each user's first
    //    search, while the daemon opens the root and warms it up and Milvus Lite builds that user's BM25 index: real,
    //    but not a warm search). Then, once the daemon says its warm-up is done, the warm searches.
    log(`${SEARCHES} searches`);
    const first = await mem(root, ['search', QUERIES[0], '--user', USERS[0]]);
    const daemonState = async () => (await mem(root, ['server', 'status'])).result?.daemon;
    const waitStart = performance.now();
    while (!(await daemonState())?.running) {
      if (performance.now() - waitStart > 120_000) throw new BenchFailure('the search daemon did not start within 120 s');
      await new Promise((r) => setTimeout(r, 500));
    }
    const afterStart = [];
    for (let i = 0; i < USERS.length; i++) {
      const u = USERS[(i + 1) % USERS.length];
      afterStart.push({ user: u, ms: round((await mem(root, ['search', QUERIES[(i + 2) % QUERIES.length], '--user', u])).ms, 1) });
    }
    const warmStart = performance.now();
    while ((await daemonState())?.warming) {
      if (performance.now() - warmStart > 300_000) throw new BenchFailure('the search daemon did not finish its warm-up within 300 s');
      await new Promise((r) => setTimeout(r, 500));
    }
    out.searchStart = {
      firstMs: round(first.ms, 1),
      afterStart: { ...stats(afterStart.map((s) => s.ms)), searches: afterStart },
      warmUpWaitMs: round(performance.now() - warmStart, 0),
    };
    const lat = [];
    const hits = [];
    for (let i = 0; i < SEARCHES; i++) {
      const q = QUERIES[(i + 1) % QUERIES.length];
      const u = USERS[i % USERS.length];
      const s = await mem(root, ['search', q, '--user', u]);
      lat.push(s.ms);
      hits.push(s.result.results.length);
      if (s.result.results.some((r) => r.user !== u)) check('search stays in the user scope', false, `query ${q} for ${u} returned another user's memory`);
    }
    // The query-embedding part of that latency, measured directly on the server. Its record is read again: a long
    // run outlives the embedding server's idle time (the full index embeds nothing with synthetic vectors), and the
    // searches above started a new one, on another port with another secret.
    const embedderNow = JSON.parse(await readFile(join(`${root}-servers`, 'servers', 'embedder.json'), 'utf8'));
    const qlat = [];
    for (let i = 0; i < Math.min(SEARCHES, QUERIES.length); i++) {
      const t1 = performance.now();
      await embed(embedderNow, [QUERIES[i]], 'e5-query');
      qlat.push(performance.now() - t1);
    }
    out.search = {
      ...stats(lat),
      avgHits: round(hits.reduce((a, b) => a + b, 0) / hits.length, 1),
      zeroHitQueries: hits.filter((h) => h === 0).length,
      queryEmbeddingMs: stats(qlat),
    };
    check('searches return results', out.search.zeroHitQueries === 0, `${out.search.zeroHitQueries} of ${SEARCHES} returned nothing`);
    // The start-up alone, beside the searches: Node itself, and the full CLI (commander and every command
    // declared) answering `mem server status`; a plain `mem search` skips the latter (src/cli/fast-search.ts).
    const bare = [];
    const status = [];
    for (let i = 0; i < 10; i++) {
      const t1 = performance.now();
      // With this process's environment: on a host that sets NODE_EXTRA_CA_CERTS, Node reads that bundle here too.
      await new Promise((ok, fail) => spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' }).on('close', ok).on('error', fail));
      bare.push(performance.now() - t1);
      status.push((await mem(root, ['server', 'status'])).ms);
    }
    out.startUp = { nodeBare: stats(bare), serverStatus: stats(status) };
    // The daemon's own time for each warm search, from its log (its stdout, `search in <root> (N ms)`): the rest of
    // the end-to-end time is the client's start-up and the socket.
    const daemonPid = (await daemonState())?.pid;
    const daemonLog = daemonPid ? await readlink(`/proc/${daemonPid}/fd/1`).catch(() => null) : null;
    const own = daemonLog
      ? (await readFile(daemonLog, 'utf8'))
          .split('\n')
          .map((l) => (l.startsWith(`search in ${root} (`) ? /\((\d+) ms\)$/.exec(l)?.[1] : undefined))
          .filter((ms) => ms !== undefined)
          .map(Number)
          .slice(-SEARCHES)
      : [];
    if (own.length === SEARCHES) out.search.daemonOwnMs = stats(own);

    // 4b. The same edit of another file with the search daemon up (step 5 started it and it has the root open): a
    //     small sync sends its writes through the daemon's loaded client (adapters/daemon/daemon-index.ts).
    out.editThroughDaemon = await editOneParagraph(root, editable[1] ?? files[1], chunked, check);

    // 6. Raw throughput of the same embedding server: batches of 32 of the corpus's own chunk texts.
    const allTexts = [...new Set(chunked.flatMap((f) => f.records.map((r) => r.content)))];
    const want = Math.min(allTexts.length, EMBED_BATCH * (EMBED_BATCHES + 1));
    const step = allTexts.length / want;
    const sample = Array.from({ length: want }, (_, i) => allTexts[Math.floor(i * step)]);
    log(`raw embedding throughput: ${want} texts in batches of ${EMBED_BATCH}`);
    await embed(embedderNow, sample.slice(0, EMBED_BATCH)); // warm-up
    const timed = sample.slice(EMBED_BATCH);
    t = performance.now();
    for (let i = 0; i < timed.length; i += EMBED_BATCH) await embed(embedderNow, timed.slice(i, i + EMBED_BATCH));
    const rawSec = (performance.now() - t) / 1000;
    const rawRate = timed.length / rawSec;
    out.rawEmbedding = {
      texts: timed.length,
      batchSize: EMBED_BATCH,
      seconds: round(rawSec, 2),
      textsPerSecond: round(rawRate, 1),
      avgChars: Math.round(timed.reduce((n, x) => n + x.length, 0) / Math.max(1, timed.length)),
    };
    if (!SYNTHETIC) out.fullIndex.shareOfRawEmbedding = round(out.fullIndex.chunksPerSecond / rawRate, 2);

    // Diagnostic: rebuild from the vector cache (no embedding), i.e. memdir's own cost of parsing, upserting, deleting.
    if (!args['skip-rebuild']) {
      log('rebuild from the vector cache');
      const rebuild = await mem(root, ['reindex', '--rebuild']);
      out.rebuildFromCache = {
        seconds: round(rebuild.ms / 1000, 2),
        embedded: rebuild.result.embedded,
        upserted: rebuild.result.upserted,
        rowsPerSecond: round(rebuild.result.upserted / (rebuild.ms / 1000), 1),
        shareOfRawInsert: round(rebuild.result.upserted / (rebuild.ms / 1000) / out.rawInsert.rowsPerSecond, 2),
        peakRssMiB: rebuild.peakRssMiB,
      };
      check('rebuild reuses cached vectors', rebuild.result.embedded === 0, `embedded ${rebuild.result.embedded}`);
    }

    const st = await mem(root, ['status']);
    out.status = {
      seconds: round(st.ms / 1000, 2),
      files: st.result.files,
      chunks: st.result.chunks,
      indexRows: st.result.indexRows,
      inSync: st.result.drift?.inSync,
    };
    check('index rows equal chunks after the run', st.result.indexRows === st.result.chunks, `rows ${st.result.indexRows}, chunks ${st.result.chunks}`);

    const [vec, milvus] = await Promise.all([du(join(root, '.mem', 'vectors')), du(join(`${root}-servers`, 'milvus'))]);
    out.disk = { corpusBytes: summary.bytes, vectorCacheBytes: vec.bytes, vectorCacheFiles: vec.files, milvusBytes: milvus.bytes };
    out.serverPeakRssMiB = await serverPeaks(root);
  } catch (err) {
    failure = err;
  } finally {
    if (serversMayRun) {
      // --all: the bench's own servers' home; its search daemon too (otherwise it would wait out its idle time).
      const stop = await mem(root, ['server', 'stop', '--all'], { allowFail: true }).catch((e) => ({ result: null, ms: 0, e }));
      out.serverStop = { seconds: round(stop.ms / 1000, 2), stopped: stop.result?.stopped ?? null };
    }
    out.loadAverageAtEnd = os.loadavg().map((x) => round(x, 2));
    if (args.keep) log(`kept ${root}`);
    else for (const dir of [root, `${root}-servers`]) await rm(dir, { recursive: true, force: true });
  }

  if (args.out) await writeFile(args.out, `${JSON.stringify(out, null, 2)}\n`);
  if (args.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  else process.stdout.write(`${render(out)}\n`);
  if (failure) {
    process.stderr.write(`\n[bench] FAILED: ${failure instanceof Error ? failure.message : String(failure)}\n`);
    if (!(failure instanceof BenchFailure) && failure instanceof Error) process.stderr.write(`${failure.stack}\n`);
    process.exitCode = 1;
  } else if (out.checks.some((c) => !c.ok)) {
    process.exitCode = 1;
  }
}

function render(o) {
  const m = o.machine;
  const c = o.corpus;
  const rows = [
    ['memdir benchmark', undefined],
    ['date', o.date],
    ['machine', `${m.cpuModel} x${m.cpuCount}, ${m.totalMemoryGiB} GiB, ${m.platform}, node ${m.node}`],
    ['load average (start/end)', `${o.loadAverageAtStart.join(' ')} / ${(o.loadAverageAtEnd ?? []).join(' ')}`],
  ];
  if (c) {
    rows.push(
      ['corpus', undefined],
      ['files / users', `${c.files} / ${c.users} (${(c.bytes / 1024).toFixed(0)} KiB, avg ${c.avgFileBytes} B)`],
      [
        'types',
        Object.entries(c.byType)
          .map(([k, v]) => `${k} ${v}`)
          .join(', '),
      ],
      ['languages', `en ${c.byLanguage.en}, mixed en/zh ${c.byLanguage.mixed}, zh ${c.byLanguage.zh}`],
      ['with headings / paragraphs', `${c.withHeadings} / ${c.paragraphs}`],
      ['chunks (avg chars)', `${c.expectedChunks} (${c.avgChunkChars})`],
    );
  }
  if (o.cliStartupMs) rows.push(['CLI start-up (mem server status)', `p50 ${o.cliStartupMs.p50} ms`]);
  if (o.setup) rows.push(['setup (excluded from timings)', undefined], ['mem setup (start servers)', `${o.setup.seconds} s`]);
  if (o.fullIndex) {
    const f = o.fullIndex;
    rows.push(
      ['indexing', undefined],
      [
        'full reindex',
        `${f.seconds} s: ${f.files} files, ${f.chunks} chunks, ${f.embedded} embedded -> ${f.chunksPerSecond} chunks/s${o.syntheticVectors ? ' (vectors from a synthetic cache)' : ''}`,
      ],
    );
    if (o.rawInsert) {
      const r = o.rawInsert;
      rows.push(
        ['raw bulk insert, same rows, same server', `${r.seconds} s: ${r.rows} rows in batches of ${r.batchSize} + flush -> ${r.rowsPerSecond} rows/s`],
        ['full reindex / raw insert rate', `${Math.round(f.shareOfRawInsert * 100)} %`],
      );
    }
    if (o.scaling) {
      const g = o.scaling;
      rows.push([
        `full index, ${g.files[1]} against ${g.files[0]} files`,
        `${g.timeRatio}x the time for ${g.filesRatio}x the files (${g.rowsRatio}x the rows; raw insert ${g.rawInsertTimeRatio ?? '-'}x)`,
      ]);
    }
    if (f.peakRssMiB)
      rows.push([
        'peak RSS: full / no-op / edit reindex process',
        `${f.peakRssMiB} / ${o.noopReindex?.peakRssMiB ?? '-'} / ${o.editReindex?.peakRssMiB ?? '-'} MiB`,
      ]);
  }
  if (o.noopReindex)
    rows.push([
      'no-op reindex (right after the raw insert)',
      `${o.noopReindex.seconds} s (embedded ${o.noopReindex.embedded}, upserted ${o.noopReindex.upserted})`,
    ]);
  if (o.noopReindexServerIdle)
    rows.push([
      'no-op reindex, server idle',
      `${o.noopReindexServerIdle.seconds} s (${o.noopReindexServerIdle.quiet ? 'quiet' : 'NOT quiet'} after ${o.noopReindexServerIdle.quietWaitSeconds} s; peak RSS ${o.noopReindexServerIdle.peakRssMiB} MiB)`,
    ]);
  const cpuBefore = (e) => (e.milvusCpuBefore === null || e.milvusCpuBefore === undefined ? '-' : `${Math.round(e.milvusCpuBefore * 100)} %`);
  if (o.editReindex)
    rows.push([
      'one-paragraph edit reindex (right after the no-op)',
      `${o.editReindex.seconds} s (embedded ${o.editReindex.embedded}, expected ${o.editReindex.expectedEmbedded}; Milvus Lite CPU before ${cpuBefore(o.editReindex)})`,
    ]);
  if (o.editServerIdle)
    rows.push([
      'one-paragraph edit, server idle',
      `${o.editServerIdle.seconds} s (embedded ${o.editServerIdle.embedded}; Milvus Lite CPU before ${cpuBefore(o.editServerIdle)}, ${o.editServerIdle.quiet ? 'quiet' : 'NOT quiet'} after ${o.editServerIdle.quietWaitSeconds} s; peak RSS ${o.editServerIdle.peakRssMiB} MiB)`,
    ]);
  if (o.editThroughDaemon)
    rows.push([
      'the same edit, search daemon up',
      `${o.editThroughDaemon.seconds} s (embedded ${o.editThroughDaemon.embedded}; Milvus Lite CPU before ${cpuBefore(o.editThroughDaemon)}; peak RSS ${o.editThroughDaemon.peakRssMiB} MiB)`,
    ]);
  if (o.rebuildFromCache)
    rows.push([
      'rebuild from vector cache',
      `${o.rebuildFromCache.seconds} s (embedded ${o.rebuildFromCache.embedded}, upserted ${o.rebuildFromCache.upserted}; ${o.rebuildFromCache.rowsPerSecond} rows/s, ${Math.round(o.rebuildFromCache.shareOfRawInsert * 100)} % of raw insert; peak RSS ${o.rebuildFromCache.peakRssMiB} MiB)`,
    ]);
  if (o.search) {
    const s = o.search;
    rows.push(
      ['search (warm: after the daemon warmed up; end to end via CLI)', undefined],
      [`mem search x${s.n}`, `p50 ${s.p50} ms, p95 ${s.p95} ms (min ${s.min}, max ${s.max}); avg ${s.avgHits} hits`],
      ['query embedding alone', `p50 ${s.queryEmbeddingMs.p50} ms, p95 ${s.queryEmbeddingMs.p95} ms`],
    );
    if (s.daemonOwnMs) rows.push(["the daemon's own time (its log)", `p50 ${s.daemonOwnMs.p50} ms, p95 ${s.daemonOwnMs.p95} ms`]);
    if (o.startUp)
      rows.push([
        `start-up, timed beside the searches (x${o.startUp.nodeBare.n}): node -e 0 / mem server status`,
        `p50 ${o.startUp.nodeBare.p50} / ${o.startUp.serverStatus.p50} ms`,
      ]);
    const st = o.searchStart;
    if (st?.afterStart)
      rows.push(
        ['first search (in process, starts the daemon)', `${st.firstMs} ms`],
        [
          `first searches after the start (one per user, x${st.afterStart.n})`,
          `p50 ${st.afterStart.p50} ms, max ${st.afterStart.max} ms; then ${st.warmUpWaitMs} ms until the warm-up was done`,
        ],
      );
    else if (st) rows.push(['first search / first through the new daemon (untimed above)', `${st.firstMs} / ${st.firstThroughDaemonMs} ms`]);
  }
  if (o.rawEmbedding) {
    const r = o.rawEmbedding;
    rows.push(
      ['embedding server (same model)', undefined],
      ['raw throughput', `${r.textsPerSecond} texts/s (${r.texts} texts, batches of ${r.batchSize}, avg ${r.avgChars} chars)`],
      ...(o.fullIndex?.shareOfRawEmbedding ? [['index throughput / raw', `${Math.round(o.fullIndex.shareOfRawEmbedding * 100)} %`]] : []),
    );
  }
  if (o.disk)
    rows.push(
      ['disk', undefined],
      [
        'corpus / vector cache / milvus',
        `${kib(o.disk.corpusBytes)} / ${kib(o.disk.vectorCacheBytes)} (${o.disk.vectorCacheFiles} files) / ${kib(o.disk.milvusBytes)}`,
      ],
    );
  const peaks = (byServer) =>
    Object.entries(byServer)
      .map(([k, v]) => `${k} ${v} MiB`)
      .join(', ');
  if (o.serverPeakOneRootMiB) rows.push(['peak RSS of the servers: one root (full index, its builds settled)', peaks(o.serverPeakOneRootMiB)]);
  if (o.serverPeakRssMiB) rows.push(['peak RSS of the servers: at the end (two collections: + the raw insert)', peaks(o.serverPeakRssMiB)]);
  if (o.serverStop) rows.push(['mem server stop', `${o.serverStop.seconds} s (${(o.serverStop.stopped ?? []).join(', ')})`]);
  rows.push(['checks', undefined], ...o.checks.map((ch) => [ch.name, ch.ok ? 'ok' : `FAILED (${ch.detail})`]));
  return table(rows);
}

const kib = (b) => `${(b / 1024).toFixed(0)} KiB`;

await main();
