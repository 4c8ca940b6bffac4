// What one insert of memdir's rows costs the process's memory (issue 13): memdir's MilvusIndex.insert of 500 of a
// root's rows at a time into a scratch collection, V8's committed heap and anonymous memory sampled every 2 ms, per
// insert the growth between building its rows and the request being written; with HEAP_PROFILE=1 also V8's sampling
// heap profile of everything allocated (collected objects included), by the three innermost frames.
//
// Usage (servers of the root running; a copy, never a kept root): MEMDIR_SERVER_HOME=<root>-servers \
//   node scripts/bench/insert-memory.mjs <root> [inserts=6]
import http2 from 'node:http2';
import inspector from 'node:inspector';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

import { LOCAL_EMBEDDING, MilvusIndex, parseMemory, toChunkRecords } from 'memdir/bench';

const root = process.argv[2];
const inserts = Number(process.argv[3] ?? 6);
const ROWS = 500;
const MiB = (n) => Math.round((n / 1048576) * 10) / 10;

// The request is "written" when the HTTP/2 stream gets a chunk the size of an insert (the gRPC message).
let phase = 'idle';
const connect = http2.connect;
http2.connect = function (...args) {
  const session = connect.apply(this, args);
  const request = session.request;
  session.request = function (...a) {
    const stream = request.apply(this, a);
    const write = stream.write;
    stream.write = function (chunk, ...rest) {
      if (chunk.length > 100_000) phase = 'written';
      return write.call(this, chunk, ...rest);
    };
    return stream;
  };
  return session;
};

const anon = () => Number(/^Anonymous:\s+(\d+)/m.exec(readFileSync('/proc/self/smaps_rollup', 'utf8'))[1]) * 1024;

// The root's first files' rows, as memdir's sync makes them.
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    if (files.length > inserts * 150 || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith('.md')) files.push(path);
  }
})(root);
const rows = files.flatMap((f) => {
  const doc = parseMemory(readFileSync(f, 'utf8'), { path: relative(root, f), defaultUser: 'default', fallbackTime: new Date().toISOString() });
  return toChunkRecords(doc, { maxChars: 1500 });
});

const server = JSON.parse(readFileSync(join(process.env.MEMDIR_SERVER_HOME ?? `${root}-servers`, 'servers', 'milvus-lite.json'), 'utf8'));
const index = new MilvusIndex({ address: `127.0.0.1:${server.port}`, token: server.secret, collection: 'memdir_insert_memory_bench' });
await index.drop();
await index.open(LOCAL_EMBEDDING);
const unit = () => {
  const v = Array.from({ length: LOCAL_EMBEDDING.dimension }, () => Math.random() - 0.5);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
};

const session = new inspector.Session();
session.connect();
const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
if (process.env.HEAP_PROFILE === '1') {
  await post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
}

let seen = {};
const sample = () => {
  const m = process.memoryUsage();
  const s = (seen[phase] ??= { heapTotal: 0, anon: 0 });
  s.heapTotal = Math.max(s.heapTotal, m.heapTotal);
  s.anon = Math.max(s.anon, anon());
};
const timer = setInterval(sample, 2);
try {
  for (let i = 0; i < inserts && (i + 1) * ROWS <= rows.length; i++) {
    seen = {};
    phase = 'before';
    sample();
    const batch = rows.slice(i * ROWS, (i + 1) * ROWS).map((r) => ({ ...r, vector: unit() }));
    await new Promise((resolve) => setTimeout(resolve, 30));
    phase = 'building';
    await index.insert(batch);
    phase = 'after';
    await new Promise((resolve) => setTimeout(resolve, 30));
    const grew = seen.written ? MiB(seen.written.heapTotal - seen.before.heapTotal) : null;
    console.log(
      `insert ${i}: heap committed +${grew} MB by the time the request was written; anonymous peak ${MiB(Math.max(...Object.values(seen).map((s) => s.anon)))} MiB`,
    );
  }
} finally {
  clearInterval(timer);
  await index.drop();
  await index.close();
}

if (process.env.HEAP_PROFILE === '1') {
  const { profile } = await post('HeapProfiler.stopSampling');
  const bySite = new Map();
  let total = 0;
  const walk = (node, stack) => {
    const frame = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber}`;
    const frames = [...stack, frame];
    if (node.selfSize) {
      const site = frames.slice(-3).reverse().join(' < ');
      bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
      total += node.selfSize;
    }
    for (const child of node.children) walk(child, frames);
  };
  walk(profile.head, []);
  console.log(`allocated (sampled): ${MiB(total)} MB; largest sites:`);
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${MiB(bytes)} MB  ${site}`);
}
