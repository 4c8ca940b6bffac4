// The benchmark kit, exported as `memdir/bench`: what scripts/bench/ needs beyond the library API (src/index.ts,
// `memdir`), re-exported as it is. Not a stable API; no logic lives here (test/architecture.test.ts checks both).

// Chunk counting and synthetic vectors: memdir's own parser, chunker and vector cache key.
export { parseMemory } from '../memory/parse.js';
export { toChunkRecords, NO_EXPIRY } from '../memory/records.js';
export { sha256 } from '../memory/hash.js';
export { serverLayout, stateLayout } from '../memory/layout.js';
export { LmdbVectorCache } from '../adapters/state/lmdb-vector-cache.js';
// What loading a root's manifest costs (manifest-load.mjs).
export { JsonManifest } from '../adapters/state/json-manifest.js';

// Link resolution over a manifest (links.mjs): every path's status (doctor), and what a sync's pass changes.
export { resolveLinks, linkChanges, withStatus } from '../services/core/links.js';

// The managed local servers: start, stop, and the raw index and embedder of the scale benchmark.
export { stopLocalServers } from '../server-control.js';
export { ensureRuntime, RUNTIME_PACKAGES } from '../adapters/runtime/python-runtime.js';
export { ensureServer, stopServer } from '../adapters/runtime/managed-server.js';
export { LOCAL_EMBEDDING, milvusLiteSpec, embeddingServerSpec } from '../adapters/runtime/local-servers.js';
export { MilvusIndex } from '../adapters/milvus/milvus-index.js';
export { OpenAIEmbedder } from '../adapters/embedder/openai-embedder.js';

// searchMemories with hand-wired dependencies, as openMemory wires them (scale.mjs).
export { searchMemories, eligibilityScope } from '../services/search.js';
export { DEFAULT_FUSION } from '../services/retrieval/fuse.js';
export { DEFAULT_SCORING } from '../services/retrieval/rescore.js';
export { FsMemoryFiles } from '../adapters/files/fs-memory-files.js';
export { FileLock } from '../adapters/state/file-lock.js';
export { JsonAccessStats } from '../adapters/state/json-access-stats.js';
export { GitAudit } from '../adapters/git/git-audit.js';

// The LoCoMo runner and its pieces (`mem bench locomo`; memsearch.mjs runs it beside memsearch).
export { ABLATIONS, runLocomo, scoredQuestions } from './locomo/run.js';
export { loadLocomo } from './locomo/dataset.js';
export { sessionMarkdown, sessionPath, turnOfHeading, userOf } from './locomo/ingest.js';
// The day logs of an ingested conversation and their turns' lines (for dumping candidate pools).
export { conversationLogs, turnsOfLines } from './locomo/ingest-log.js';
export { computeMetrics } from './locomo/metrics.js';
