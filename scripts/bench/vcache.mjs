// Benchmark of vector-cache stores, to choose one by measurement: memdir's LMDB store against the one-file-per-vector
// cache it replaced, and (when installed elsewhere, see --extra-from) better-sqlite3 and classic-level.
//
// Usage: node scripts/bench/vcache.mjs [--vectors 65000] [--dim 384] [--extra-from /dir/with/node_modules] [--json]
//   (or `npm run bench:vcache -- --extra-from /tmp/x`)
// For each store: write all vectors in bulk (batches of 5,000), open it again, read 1,000 random and all, remove 10 %
// (as `mem gc` does: no byte of a removed vector may stay in the files), the size on disk before and after, and the
// installed size of its npm packages. Vectors are seeded random unit vectors; keys are sha256 hex, as the sync's.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { LmdbVectorCache } from '../../dist/internal.js';

import { prng } from './corpus.mjs';
import { machine, round } from './stats.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: args } = parseArgs({
  options: {
    vectors: { type: 'string', default: '65000' },
    dim: { type: 'string', default: '384' },
    'extra-from': { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const N = Number(args.vectors);
const DIM = Number(args.dim);
const BATCH = 5_000;
const log = (msg) => process.stderr.write(`[bench:vcache] ${msg}\n`);

// ---- data ----

function dataset() {
  const rand = prng(13).next;
  const entries = [];
  for (let i = 0; i < N; i++) {
    const v = Array.from({ length: DIM }, () => rand() - 0.5);
    const norm = Math.hypot(...v);
    entries.push([createHash('sha256').update(`chunk ${i}`).digest('hex'), v.map((x) => x / norm)]);
  }
  return entries;
}

// ---- stores: open(dir) → { put(entries), get(hashes) → Map, remove(hashes), close() } ----

const f32 = (v) => Buffer.from(new Float32Array(v).buffer);
// As the LMDB adapter converts (a plain loop): every store pays the same for turning bytes into numbers.
function fromF32(b) {
  const f = new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  const v = new Array(f.length);
  for (let i = 0; i < f.length; i++) v[i] = f[i];
  return v;
}

/** The cache memdir had before (src/adapters/state/file-vector-cache.ts, removed): one float32 file per hash. */
const perFile = {
  name: 'one file per vector (before)',
  packages: [],
  open: async (dir) => {
    const fileOf = (h) => join(dir, h.slice(0, 2), `${h}.f32`);
    const parallel = async (items, fn) => {
      for (let i = 0; i < items.length; i += 64) await Promise.all(items.slice(i, i + 64).map(fn));
    };
    return {
      put: (entries) =>
        parallel(entries, async ([h, v]) => {
          await mkdir(dirname(fileOf(h)), { recursive: true });
          // The old cache wrote each file atomically (temp file + rename): one more syscall pair, same shape.
          await writeFile(fileOf(h), f32(v));
        }),
      get: async (hashes) => {
        const found = new Map();
        await parallel(hashes, async (h) => {
          const b = await readFile(fileOf(h)).catch(() => null);
          if (b) found.set(h, fromF32(b));
        });
        return found;
      },
      remove: (hashes) => parallel(hashes, (h) => rm(fileOf(h), { force: true })),
      close: async () => {},
    };
  },
};

const lmdb = {
  name: 'lmdb 3.5.6 (chosen)',
  packages: ['lmdb', '@lmdb/lmdb-linux-x64', 'msgpackr', 'msgpackr-extract', 'ordered-binary', 'weak-lru-cache', 'node-gyp-build-optional-packages'],
  from: REPO,
  open: async (dir) => {
    const cache = new LmdbVectorCache(dir, 'bench');
    return {
      put: (entries) => cache.putMany(new Map(entries)),
      get: (hashes) => cache.getMany(hashes),
      remove: (hashes) => cache.removeMany(hashes),
      close: () => cache.close(),
    };
  },
};

function betterSqlite(require) {
  const Database = require('better-sqlite3');
  return {
    name: 'better-sqlite3 12.11.1',
    packages: ['better-sqlite3', 'bindings', 'file-uri-to-path', 'prebuild-install'],
    open: async (dir) => {
      await mkdir(dir, { recursive: true });
      const db = new Database(join(dir, 'vectors.sqlite'));
      // secure_delete zeroes removed rows in place; the rollback journal is deleted at each commit.
      db.pragma('secure_delete = ON');
      db.pragma('busy_timeout = 10000');
      db.exec('CREATE TABLE IF NOT EXISTS v (h TEXT PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID');
      const put = db.prepare('INSERT OR REPLACE INTO v (h, v) VALUES (?, ?)');
      const get = db.prepare('SELECT v FROM v WHERE h = ?');
      const del = db.prepare('DELETE FROM v WHERE h = ?');
      const putAll = db.transaction((entries) => entries.forEach(([h, v]) => put.run(h, f32(v))));
      const delAll = db.transaction((hashes) => hashes.forEach((h) => del.run(h)));
      return {
        put: async (entries) => putAll(entries),
        get: async (hashes) => {
          const found = new Map();
          for (const h of hashes) {
            const row = get.get(h);
            if (row) found.set(h, fromF32(row.v));
          }
          return found;
        },
        remove: async (hashes) => {
          delAll(hashes);
          db.exec('VACUUM'); // gives the freed pages back to the file system
        },
        close: async () => db.close(),
      };
    },
  };
}

function classicLevel(require) {
  const { ClassicLevel } = require('classic-level');
  return {
    name: 'classic-level 3.0.0 (LevelDB)',
    packages: ['classic-level', 'abstract-level', 'module-error', 'napi-macros', 'node-gyp-build', 'maybe-combine-errors'],
    open: async (dir) => {
      const db = new ClassicLevel(join(dir, 'level'), { keyEncoding: 'utf8', valueEncoding: 'buffer' });
      await db.open();
      return {
        put: (entries) => db.batch(entries.map(([h, v]) => ({ type: 'put', key: h, value: f32(v) }))),
        get: async (hashes) => {
          const values = await db.getMany(hashes);
          return new Map(hashes.flatMap((h, i) => (values[i] ? [[h, fromF32(values[i])]] : [])));
        },
        remove: async (hashes) => {
          await db.batch(hashes.map((h) => ({ type: 'del', key: h })));
          await db.compactRange('0', 'g'); // rewrites the tables without the deleted keys
        },
        close: () => db.close(),
      };
    },
  };
}

// ---- measurement ----

async function diskBytes(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  let bytes = 0;
  let files = 0;
  for (const e of entries) {
    if (!e.isFile()) continue;
    const st = await stat(join(e.parentPath, e.name)).catch(() => null);
    if (!st) continue;
    bytes += st.blocks * 512;
    files++;
  }
  return { bytes, files };
}

function installBytes(from, packages) {
  let bytes = 0;
  for (const name of packages) {
    const dir = join(from, 'node_modules', name);
    if (!existsSync(dir)) continue;
    const walk = (d) => {
      for (const n of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, n.name);
        if (n.isDirectory()) walk(p);
        else bytes += statSync(p).size;
      }
    };
    walk(dir);
  }
  return bytes;
}

async function time(fn) {
  const t0 = performance.now();
  const out = await fn();
  return { ms: performance.now() - t0, out };
}

async function measure(store, data, base) {
  const dir = join(base, store.name.split(' ')[0]);
  const hashes = data.map(([h]) => h);
  let s = await store.open(dir);
  const write = await time(async () => {
    for (let i = 0; i < data.length; i += BATCH) await s.put(data.slice(i, i + BATCH));
  });
  await s.close();
  const written = await diskBytes(dir);
  const opened = await time(async () => {
    s = await store.open(dir);
    return s.get([hashes[0]]); // open and first read: what a command pays before the cache answers
  });
  const rand = prng(5).next;
  const sample = Array.from({ length: 1000 }, () => hashes[Math.floor(rand() * hashes.length)]);
  const random = await time(() => s.get(sample));
  const all = await time(() => s.get(hashes));
  if (all.out.size !== N || random.out.size !== new Set(sample).size) throw new Error(`${store.name}: read back ${all.out.size} of ${N}`);
  const gone = hashes.filter((_, i) => i % 10 === 0);
  const removal = await time(() => s.remove(gone));
  const left = await s.get(hashes);
  if (left.size !== N - gone.length) throw new Error(`${store.name}: ${left.size} left after removing ${gone.length}`);
  await s.close();
  const after = await diskBytes(dir);
  // What forget's scan looks for: the first 16 floats of each removed vector, in any file of the store.
  const needles = gone.slice(0, 200).map((h) => f32(data[hashes.indexOf(h)][1].slice(0, 16)));
  let survivors = 0;
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const bytes = await readFile(join(e.parentPath, e.name));
    survivors += needles.filter((n) => bytes.includes(n)).length;
  }
  return {
    store: store.name,
    writeSeconds: round(write.ms / 1000, 2),
    writePerSecond: Math.round(N / (write.ms / 1000)),
    openMs: round(opened.ms, 1),
    read1000RandomMs: round(random.ms, 1),
    readAllSeconds: round(all.ms / 1000, 2),
    remove10PercentSeconds: round(removal.ms / 1000, 2),
    removedBytesFound: `${survivors} of ${needles.length}`,
    diskMiB: round(written.bytes / 1024 ** 2, 1),
    diskFiles: written.files,
    diskMiBAfterRemoval: round(after.bytes / 1024 ** 2, 1),
    installMiB: store.packages.length ? round(installBytes(store.from, store.packages) / 1024 ** 2, 1) : 0,
  };
}

async function main() {
  const stores = [perFile, lmdb];
  if (args['extra-from']) {
    const from = resolve(args['extra-from']);
    const extra = createRequire(join(from, 'package.json'));
    for (const make of [betterSqlite, classicLevel]) {
      try {
        stores.push({ ...make(extra), from });
      } catch (err) {
        log(`${make.name}: not loadable from ${from} (${err.message.split('\n')[0]}): skipped`);
      }
    }
  }
  log(`${N} vectors of ${DIM} dimensions`);
  const data = dataset();
  const base = await mkdtemp(join(os.tmpdir(), 'memdir-bench-vcache-'));
  const load = [os.loadavg()[0]];
  const results = [];
  try {
    for (const store of stores) {
      log(`${store.name}…`);
      results.push(await measure(store, data, base));
      log(JSON.stringify(results.at(-1)));
    }
  } finally {
    await rm(base, { recursive: true, force: true });
  }
  load.push(os.loadavg()[0]);
  const report = { vectors: N, dim: DIM, machine: machine(), loadAverage1m: load.map((l) => round(l, 1)), results };
  if (args.json) {
    console.log(JSON.stringify(report, null, 2));
    return;
  }
  const cols = Object.keys(results[0]);
  console.log(`| ${cols.join(' | ')} |\n|${cols.map(() => '---').join('|')}|`);
  for (const r of results) console.log(`| ${cols.map((c) => r[c]).join(' | ')} |`);
  console.log(`\n${N} vectors × ${DIM} float32; load average (1 min) ${load.map((l) => round(l, 1)).join(' → ')}; ${JSON.stringify(report.machine)}`);
}

await main();
