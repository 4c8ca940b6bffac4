// Experiment: writes a root's manifest for a generated corpus through memdir's real sync, with an index that
// keeps nothing (so that no-op and edit reindexes at 50,000 files can be timed without a 30-minute full index).
import { loadConfig } from 'memdir';
import { FsMemoryFiles, FileLock, stateLayout } from 'memdir/bench';
import { JsonManifest } from '../../dist/adapters/state/json-manifest.js';
import { syncIndex } from '../../dist/services/core/sync.js';
import { generateCorpus } from './corpus.mjs';

const [root, n, scope] = [process.argv[2], Number(process.argv[3]), process.argv[4]];
const t0 = Date.now();
await generateCorpus(root, n);
console.error('generated', (Date.now() - t0) / 1000);
const config = loadConfig(process.env, { root });
const dir = stateLayout(root).dir;
const noop = async () => undefined;
const index = { open: noop, drop: noop, upsert: noop, insert: noop, deleteChunks: noop, deleteStale: noop, delete: noop, flush: noop, close: noop, listPaths: async () => [], count: async () => 0 };
const zero = new Array(384).fill(0);
const cache = { getMany: async (hs) => new Map(hs.map((h) => [h, zero])), putMany: noop, removeMany: noop, retain: async () => 0, close: noop };
const report = await syncIndex({
  files: new FsMemoryFiles(root), index, embedder: { identity: { name: 'x', dimension: 384 }, embedDocuments: async () => { throw new Error('no'); } },
  cache, manifest: new JsonManifest(dir, scope), lock: new FileLock(dir), chunking: { maxChars: config.chunkMaxChars, ...(config.chunkWindow !== undefined ? { window: config.chunkWindow } : {}) },
  defaultUser: config.defaultOwner, embedBatchSize: 32, maxFileBytes: config.maxFileBytes, residue: { markDeleted: noop },
});
console.log(JSON.stringify({ ...report, errors: report.errors.length, seconds: (Date.now() - t0) / 1000 }));
