// Benchmark of `mem watch`: how long from saving an edit to a memory file until a search finds the new text.
//
// Usage: node scripts/bench/watch.mjs [--files 100] [--edits 20] [--debounce 100] [--json] [--keep]
//        (or `npm run bench:watch`). Needs a build and the embedded runtime (`mem setup` provisions it).
//
// A generated corpus is indexed by a real `mem watch` process (its first sync). Then, one at a time,
// a sentence with a unique made-up word is appended to an existing file, alternately by a plain write
// and by an editor-style atomic save (temp file renamed over the original). The clock starts just
// before the write and stops when a search in this process (a separate Memory on the same root) first
// returns the new text. The polling searches are BM25-only, every 25 ms: a hybrid search embeds its
// query on the same model server that embeds the edit, and polling with it slowed the very sync it
// waited for. The row BM25 finds is the row dense search finds (one upsert); a hybrid search (k 8, the
// default of `mem search`) then confirms each edit, untimed. The figure includes up to one polling
// interval and one search.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { loadConfig, openMemory } from 'memdir';

import { generateCorpus } from './corpus.mjs';
import { machine, round, stats } from './stats.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MEM = join(REPO, 'bin', 'mem.js');
const POLL_MS = 25;
const TIMEOUT_MS = 60_000;

const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: '100' },
    edits: { type: 'string', default: '20' },
    debounce: { type: 'string', default: '100' },
    json: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const FILES = Number(args.files);
const EDITS = Number(args.edits);
if (!Number.isInteger(FILES) || FILES < EDITS) throw new Error('--files must be a whole number >= --edits');
if (!Number.isInteger(EDITS) || EDITS < 1) throw new Error('--edits must be a whole number >= 1');

// The embedded default with default settings: variables that would point memdir elsewhere are dropped.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MEM_') && !k.startsWith('MILVUS_')));
const log = (msg) => process.stderr.write(`[bench:watch] ${msg}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const root = await mkdtemp(join(os.tmpdir(), 'memdir-bench-watch-'));
const { files } = await generateCorpus(root, FILES);
log(`corpus: ${FILES} files in ${root}`);

const started = performance.now();
const watcher = spawn(process.execPath, [MEM, '--root', root, 'watch', '--json', '--debounce', args.debounce], { env, stdio: ['ignore', 'pipe', 'pipe'] });
const syncs = [];
let buffer = '';
let stderr = '';
watcher.stdout.on('data', (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf('\n')) >= 0) {
    syncs.push(JSON.parse(buffer.slice(0, nl)));
    buffer = buffer.slice(nl + 1);
  }
});
watcher.stderr.on('data', (chunk) => (stderr += chunk));
const exited = new Promise((r) => watcher.once('exit', r));

async function waitFor(check, what) {
  const deadline = performance.now() + TIMEOUT_MS * 5;
  while (!check()) {
    if (watcher.exitCode !== null) throw new Error(`mem watch exited (${watcher.exitCode}) while waiting for ${what}:\n${stderr}`);
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

let memory;
try {
  await waitFor(() => syncs.some((s) => s.initial), 'the initial sync');
  const initial = syncs.find((s) => s.initial);
  log(`initial sync: ${initial.files} files, ${initial.chunks} chunks in ${initial.ms} ms (${round((performance.now() - started) / 1000)} s with start-up)`);

  memory = await openMemory(loadConfig(env, { root }));
  await memory.search({ query: 'warm-up', user: files[0].user, track: false }); // first-search costs are not an edit's

  const samples = { plain: [], atomic: [] };
  const edited = [];
  for (let i = 0; i < EDITS; i++) {
    const file = files[i];
    const word = `zorblax${i}quill`;
    const path = join(root, file.path);
    const text = `${await readFile(path, 'utf8')}\nThe project codename chosen today is ${word}.\n`;
    const kind = i % 2 === 0 ? 'plain' : 'atomic';
    const before = syncs.length;
    const t0 = performance.now();
    if (kind === 'plain') await writeFile(path, text);
    else {
      await writeFile(`${path}.tmp-${i}`, text);
      await rename(`${path}.tmp-${i}`, path);
    }
    for (;;) {
      const hits = await memory.search({ query: `project codename ${word}`, user: file.user, track: false, mode: 'bm25' });
      if (hits.some((h) => h.content.includes(word))) break;
      if (performance.now() - t0 > TIMEOUT_MS) throw new Error(`edit ${i} (${file.path}) not searchable after ${TIMEOUT_MS} ms`);
      await sleep(POLL_MS);
    }
    const ms = performance.now() - t0;
    const hybrid = await memory.search({ query: `project codename ${word}`, user: file.user, track: false });
    if (!hybrid.some((h) => h.content.includes(word))) throw new Error(`edit ${i} found by BM25 but not by a hybrid search`);
    samples[kind].push(ms);
    edited.push({ before, path: file.path });
    log(`edit ${i + 1}/${EDITS} (${kind}): searchable after ${round(ms)} ms`);
    await sleep(300);
  }
  // The sync that carried each edit (its line may arrive after the search already found the text).
  await sleep(1_000);
  const syncMs = edited.flatMap(({ before, path }) => {
    const sync = syncs.slice(before).find((s) => Array.isArray(s.paths) && s.paths.includes(path));
    return sync ? [sync.ms] : [];
  });

  const all = [...samples.plain, ...samples.atomic];
  const result = {
    benchmark: 'edit → searchable latency under mem watch',
    command: `node scripts/bench/watch.mjs --files ${FILES} --edits ${EDITS} --debounce ${args.debounce}`,
    machine: machine(),
    corpus: { files: FILES, chunks: initial.chunks },
    debounceMs: Number(args.debounce),
    pollMs: POLL_MS,
    latency_ms: stats(all),
    plainWrite_ms: stats(samples.plain),
    atomicSave_ms: stats(samples.atomic),
    sync_ms: stats(syncMs),
    errors: syncs.filter((s) => s.event === 'error').length,
  };
  if (args.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else {
    const s = result.latency_ms;
    process.stdout.write(
      `edit → searchable (${s.n} edits, ${FILES} files / ${initial.chunks} chunks, debounce ${args.debounce} ms): ` +
        `p50 ${s.p50} ms, p95 ${s.p95} ms (min ${s.min}, max ${s.max}); ` +
        `plain write p50 ${result.plainWrite_ms.p50}, atomic save p50 ${result.atomicSave_ms.p50}; sync alone p50 ${result.sync_ms.p50} / p95 ${result.sync_ms.p95} ms\n`,
    );
  }
} finally {
  await memory?.close();
  watcher.kill('SIGINT');
  await exited;
  spawn(process.execPath, [MEM, '--root', root, 'server', 'stop'], { env, stdio: 'ignore' }).once('exit', async () => {
    if (!args.keep) await rm(root, { recursive: true, force: true });
  });
}
