import { readFileSync, readdirSync } from 'node:fs';
import { LmdbVectorCache, LOCAL_EMBEDDING, sha256, stateLayout } from 'memdir/bench';
import { open } from 'lmdb';
const [root, every] = [process.argv[2], Number(process.argv[3])];
const cache = new LmdbVectorCache(stateLayout(root).dir, sha256(`${LOCAL_EMBEDDING.name}@${LOCAL_EMBEDDING.dimension}`).slice(0, 16), every);
const dir = stateLayout(root).dir + '/vectors';
const file = dir + '/' + readdirSync(dir).find(n => n.endsWith('.mdb'));
const db = open({ path: file, noSubdir: true, keyEncoding: 'binary', encoding: 'binary', compression: false, cache: false, pageSize: 8192, readOnly: true });
const keys = [...db.getKeys()].map(k => k.toString('utf8'));
await db.close();
for (let i = keys.length - 1; i > 0; i--) { const j = Math.floor(Math.random() * (i + 1)); [keys[i], keys[j]] = [keys[j], keys[i]]; }
const file_ = () => Number(/RssFile:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
let peak = 0; const t0 = performance.now();
for (let i = 0; i < keys.length; i += 64) { await cache.getMany(keys.slice(i, i + 64)); peak = Math.max(peak, file_()); }
console.log('every', every, 'reads', keys.length, 'peak RssFile MiB', Math.round(peak), 'ms', Math.round(performance.now() - t0));
