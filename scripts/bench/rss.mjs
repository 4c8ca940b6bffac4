// Peak memory of a full `mem reindex` (issue 13): resident memory of the process, anonymous and file-backed apart,
// sampled from /proc (and the kernel's VmHWM) while it rebuilds a generated root's index from a synthetic vector cache.
//
// Usage: node scripts/bench/rss.mjs [--files 10000] [--root dir] [--runs 1 (0: only make the root)] [--node-args="--max-semi-space-size=1"] [--stop]
//
// The root (corpus + synthetic vectors) is made once and reused (default /tmp/memdir-rss-<files>); its own
// servers live beside it (`<root>-servers`). Each run is `mem reindex --rebuild`: the same insert path as a
// first full index. --stop stops the root's servers at the end. Needs a build (`npx tsc -p tsconfig.json`).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { generateCorpus } from './corpus.mjs';
import { defaultsEnv } from './local.mjs';
import { chunkTexts, fillCacheWithRandomVectors } from './synthetic.mjs';
import { machine, round } from './stats.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MEM = join(REPO, 'bin', 'mem.js');
const SAMPLE_MS = 300;

const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: '10000' },
    root: { type: 'string' },
    runs: { type: 'string', default: '1' },
    'node-args': { type: 'string', default: '' },
    stop: { type: 'boolean', default: false },
  },
});
const FILES = Number(args.files);
const root = resolve(args.root ?? join(os.tmpdir(), `memdir-rss-${FILES}`));
const env = { ...defaultsEnv(), MEMDIR_SERVER_HOME: `${root}-servers` };
const log = (msg) => process.stderr.write(`[rss] ${msg}\n`);

// VmHWM: the kernel's own peak of VmRSS (GNU time's maximum resident size), which a sample may miss.
const KEYS = ['VmRSS', 'VmHWM', 'RssAnon', 'RssFile', 'RssShmem'];

/** The memory lines of /proc/<pid>/status in MiB, or null once the process is gone. */
async function memoryOf(pid) {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    return Object.fromEntries(KEYS.map((k) => [k, Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024]));
  } catch {
    return null;
  }
}

/** Runs `mem` with extra node flags; with `sample`, records the peak of each memory line every SAMPLE_MS. */
function mem(cliArgs, { nodeArgs = [], sample = false } = {}) {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [...nodeArgs, MEM, '--root', root, '--json', ...cliArgs], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const peak = Object.fromEntries(KEYS.map((k) => [k, 0]));
    let samples = 0;
    const timer = sample
      ? setInterval(async () => {
          const m = await memoryOf(child.pid);
          if (!m) return;
          samples++;
          for (const k of KEYS) peak[k] = Math.max(peak[k], m[k]);
        }, SAMPLE_MS)
      : null;
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', fail);
    child.on('close', (code) => {
      if (timer) clearInterval(timer);
      const seconds = (performance.now() - t0) / 1000;
      const line = out.trim().split('\n').filter(Boolean).pop() ?? 'null';
      if (code !== 0) return fail(new Error(`mem ${cliArgs.join(' ')} exited with ${code}: ${out.slice(-1000)} ${err.slice(-2000)}`));
      done({ result: JSON.parse(line), seconds, peak: Object.fromEntries(KEYS.map((k) => [k, round(peak[k], 0)])), samples });
    });
  });
}

async function main() {
  if (!existsSync(join(root, '.mem'))) {
    log(`generating ${FILES} files and their synthetic vectors in ${root}`);
    const { files } = await generateCorpus(root, FILES);
    await fillCacheWithRandomVectors(root, await chunkTexts(root, files));
  }
  // --runs 0 only makes the root.
  if (Number(args.runs) > 0) await mem(['setup']);
  const nodeArgs = args['node-args'].split(/\s+/).filter(Boolean);
  const runs = [];
  try {
    for (let i = 0; i < Number(args.runs); i++) {
      const load = os.loadavg()[0];
      log(`mem reindex --rebuild ${nodeArgs.join(' ')} (load ${load.toFixed(1)})`);
      // Under load, Milvus Lite's drop of a collection just written may outlast the client's 60 s deadline: tried once more.
      const r = await mem(['reindex', '--rebuild'], { nodeArgs, sample: true }).catch((err) => {
        if (!/unavailable during drop/.test(err.message)) throw err;
        log(`retrying once: ${err.message.slice(0, 200)}`);
        return mem(['reindex', '--rebuild'], { nodeArgs, sample: true });
      });
      const run = {
        files: r.result.files,
        rows: r.result.upserted,
        seconds: round(r.seconds, 1),
        rowsPerSecond: round(r.result.upserted / r.seconds, 0),
        peakMiB: r.peak,
        samples: r.samples,
        loadAverage: [round(load, 1), round(os.loadavg()[0], 1)],
      };
      log(JSON.stringify(run));
      runs.push(run);
    }
  } finally {
    if (args.stop && Number(args.runs) > 0) await mem(['server', 'stop']).catch((e) => log(`server stop: ${e.message}`));
  }
  process.stdout.write(
    `${JSON.stringify({ date: new Date().toISOString(), command: `node scripts/bench/rss.mjs ${process.argv.slice(2).join(' ')}`, root, nodeArgs, machine: machine(), runs }, null, 2)}\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`[rss] FAILED: ${err.stack ?? err}\n`);
  process.exitCode = 1;
});
