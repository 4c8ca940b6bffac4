// What a caller may ask of opening a root: the library's OpenOptions, and the wiring hooks memdir's own callers add.
import type { MemoryDeps } from '../services/core/deps.js';
import type { Embedder, VectorIndex } from '../services/ports.js';

export interface OpenOptions {
  /** Progress and set-up messages (provisioning the runtime, starting servers). */
  onLog?: (line: string) => void;
  /**
   * Small index calls go through the running search daemon of this configuration when it has the root open (default
   * true; see adapters/daemon/daemon-index.ts). The daemon itself opens its roots with false.
   */
  indexThroughDaemon?: boolean;
  /** Start every server the configuration uses now, not on first use (`mem setup`: installs the second model too). */
  startAll?: boolean;
  /**
   * The command syncs (`mem reindex`): once the sync knows it will write (a file differs from the manifest), the
   * Milvus SDK is loaded and the collection opened in a worker thread while this thread parses and embeds
   * (adapters/milvus/worker-index.ts; SyncDeps.prepareIndex). A no-op never starts it. Not when a search daemon runs
   * for this configuration: it takes small writes with its client loaded already.
   */
  prepareIndex?: boolean;
  /**
   * The root must be on disk already (a long-lived process opening a root again: the search daemon, `mem mcp`): one
   * deleted meanwhile fails with RootGoneError instead of being made anew. Otherwise a missing root is created.
   */
  existingRoot?: boolean;
}

/** What memdir's own callers may add to OpenOptions; the library API (src/index.ts) offers OpenOptions alone. */
export interface WiringOptions extends OpenOptions {
  /** Wraps the configured embedder (the LoCoMo benchmark embeds each question once for all its ablations). */
  wrapEmbedder?: (embedder: Embedder) => Embedder;
  /** Wraps the index (the daemon keeps each root's own; the search-latency benchmark times each call). */
  wrapIndex?: (index: VectorIndex) => VectorIndex;
  /** Receives the wired dependencies (the benchmarks search through them with the ranking tuned). */
  onDeps?: (deps: MemoryDeps) => void;
}
