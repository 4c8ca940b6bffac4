// The ranking settings a memory store is opened with (how dense and BM25 fuse, how each memory type blends relevance
// with recency and importance): plain data that every use case receives in its deps; retrieval/ holds their defaults
// and the arithmetic that reads them.
import type { MemoryType } from '../../memory/model.js';

export type Fusion = 'rrf' | 'weighted';

export interface FusionOptions {
  fusion: Fusion;
  /** RRF's rank constant. */
  rrfK: number;
  /** Share of the dense signal in weighted fusion (the rest is BM25). */
  denseWeight: number;
}

export interface TypeScoring {
  relevance: number;
  recency: number;
  importance: number;
  /** Recency halves every this many hours since the memory was last accessed (or updated). */
  halfLifeHours: number;
}

export type ScoringConfig = Record<MemoryType, TypeScoring>;
