// Shared by the benchmark scripts: the environment of the mem processes they run, calls to the local
// embedding server, disk usage of a folder and waiting for a root's Milvus Lite to go quiet. A support module: measures nothing itself.
import { spawn } from 'node:child_process';
import { readFile, readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { round } from './stats.mjs';

/**
 * Variables that would point memdir elsewhere or change its settings: the benchmarks measure the embedded
 * default, so these are not passed on to the processes they run.
 */
export const STRIPPED_ENV = [
  'MEM_ROOT',
  'MILVUS_URI',
  'MILVUS_TOKEN',
  'MEM_EMBEDDER',
  'MEM_COLLECTION',
  'MEM_CHUNK_MAX_CHARS',
  'MEM_EMBED_BATCH',
  'MEM_MAX_FILE_MB',
  'MEM_USER',
  'MEM_GIT',
  'MEM_DAEMON',
  'MEM_DENSE_WEIGHT',
];

/** This process's environment without STRIPPED_ENV, for the mem processes a benchmark runs. */
export const defaultsEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !STRIPPED_ENV.includes(k)));

/** One request to the OpenAI-compatible /v1/embeddings endpoint of a server record ({ port, secret }); checks the vector count. */
export async function embed(server, texts, model = 'e5-passage') {
  const res = await fetch(`http://127.0.0.1:${server.port}/v1/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.secret}` },
    body: JSON.stringify({ model, input: texts, encoding_format: 'float' }),
  });
  if (!res.ok) throw new Error(`embedding server answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
  const body = await res.json();
  if (!Array.isArray(body.data) || body.data.length !== texts.length) throw new Error('embedding server returned the wrong number of vectors');
  return body;
}

/** Bytes and file count below `dir` (0 when it does not exist). */
export async function du(dir) {
  let bytes = 0;
  let files = 0;
  const walk = async (d) => {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) {
        bytes += (await stat(p)).size;
        files++;
      }
    }
  };
  await walk(dir);
  return { bytes, files };
}

const MEM = join(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..'), 'bin', 'mem.js');

/** Runs `mem --root <root> --json ...args` with this environment; returns the parsed result and the wall time in ms. */
export function memJson(root, cliArgs, env) {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [MEM, '--root', root, '--json', ...cliArgs], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      if (code !== 0) return fail(new Error(`mem ${cliArgs.join(' ')} exited ${code}: ${err || out}`));
      done({ result: JSON.parse(out.trim().split('\n').pop()), ms });
    });
  });
}

/** CPU of the root's Milvus Lite server over `ms` (share of one core), e.g. still indexing or compacting in the background. */
export async function serverCpuShare(root, ms = 1000) {
  try {
    const rec = JSON.parse(await readFile(join(`${root}-servers`, 'servers', 'milvus-lite.json'), 'utf8'));
    // utime + stime, in clock ticks (100 per second on Linux): fields 14 and 15, after the parenthesised name.
    const ticks = async () => {
      const fields = (await readFile(`/proc/${rec.pid}/stat`, 'utf8')).replace(/^.*\) /, '').split(' ');
      return Number(fields[11]) + Number(fields[12]);
    };
    const a = await ticks();
    await new Promise((r) => setTimeout(r, ms));
    return round(((await ticks()) - a) / (ms / 10), 2);
  } catch {
    return null; // not running, or no /proc
  }
}

// Quiet: Milvus Lite under 10 % of a core in each of three consecutive seconds.
const QUIET_SHARE = 0.1;
const QUIET_SECONDS = 3;
// Milvus Lite now builds the indexes of a bulk load's segments once its writes pause (src/adapters/runtime/
// lite-write-patch.ts): after the 50,000-file full index that is all 208,813 rows' HNSW graphs at once (about 265 s on
// a loaded 2-core machine), which 120 s did not cover; the raw insert must not start beside it.
const QUIET_WAIT_MS = 600_000;

/** Waits until the root's Milvus Lite server is quiet (background compaction and index builds over), at most 600 s. */
export async function waitForQuietServer(root) {
  const started = performance.now();
  let calm = 0;
  while (calm < QUIET_SECONDS && performance.now() - started < QUIET_WAIT_MS) {
    const share = await serverCpuShare(root);
    if (share === null) break; // not running: nothing to wait for
    calm = share < QUIET_SHARE ? calm + 1 : 0;
  }
  const seconds = round((performance.now() - started) / 1000, 1);
  return { seconds, quiet: calm >= QUIET_SECONDS };
}
