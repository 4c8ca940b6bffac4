// The internal door: what memdir's dev-only benchmarks (bench/, scripts/bench/) reach beyond the library API. It is
// not in package.json "exports", so a user of the package cannot import it; it only re-exports, and nothing in src/
// imports it (test/architecture.test.ts checks all three). Not a stable API.

// Opening a root with memdir's own wiring hooks (OpenOptions' internal extension), and the configuration.
export { openMemory, type WiringOptions } from './open-memory.js';
export { loadConfig, type MemConfig } from './config.js';
export { UsageError, errorMessage } from './errors.js';

// Searching with the ranking tuned (the LoCoMo ablations), and searchMemories with hand-wired dependencies (scale.mjs).
export { searchMemories, eligibilityScope, type SearchInput, type SearchResult } from './services/search.js';
export type { RankingTuning } from './services/retrieval/tuning.js';
export { NO_CONTEXT } from './services/retrieval/neighbours.js';
export { NO_DIVERSITY } from './services/retrieval/diversity.js';
export { formatContext, estimateTokens } from './services/retrieval/context.js';
export { searchText } from './services/retrieval/tool-text.js';
export { DEFAULT_FUSION } from './services/retrieval/fuse.js';
export { DEFAULT_SCORING } from './services/retrieval/rescore.js';
export type { MemoryDeps } from './services/core/deps.js';
export type { Embedder } from './services/ports.js';
export type { ReindexReport } from './services/core/sync.js';

// Memdir's own format: parser, chunker, serialiser, the day logs `mem ingest` writes (the LoCoMo layouts), hashes.
export { parseMemory } from './memory/parse.js';
export { toChunkRecords, NO_EXPIRY } from './memory/records.js';
export type { ChunkOptions } from './memory/chunk.js';
export { serializeMemory } from './memory/serialize.js';
export { sha256 } from './memory/hash.js';
export { serverLayout, stateLayout } from './memory/layout.js';
export { appendedLogText, logPath, newLogText, renderSession, sessionDay, transcriptHash } from './services/ingest/episodic-log.js';
export { parseTranscript } from './services/ingest/transcript.js';

// The managed local servers: start, stop, and the raw index and embedder of the scale benchmark.
export { stopLocalServers } from './server-control.js';
export { ensureRuntime, RUNTIME_PACKAGES } from './adapters/runtime/python-runtime.js';
export { ensureServer, stopServer } from './adapters/runtime/managed-server.js';
export { LOCAL_EMBEDDING, milvusLiteSpec, embeddingServerSpec } from './adapters/runtime/local-servers.js';
export { MilvusIndex } from './adapters/milvus/milvus-index.js';
export { OpenAIEmbedder } from './adapters/embedder/openai-embedder.js';
export { LmdbVectorCache } from './adapters/state/lmdb-vector-cache.js';
export { FsMemoryFiles } from './adapters/files/fs-memory-files.js';
export { FileLock } from './adapters/state/file-lock.js';
export { JsonAccessStats } from './adapters/state/json-access-stats.js';
export { GitAudit } from './adapters/git/git-audit.js';
