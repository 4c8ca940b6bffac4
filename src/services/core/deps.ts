// Everything the use cases need, assembled once by the composition root.
import type { AccessStats, AuditLog, Llm, WatchFiles } from '../ports.js';
import type { LifecycleConfig } from '../../memory/lifecycle.js';
import type { FusionOptions } from '../retrieval/fuse.js';
import type { ScoringConfig } from '../retrieval/rescore.js';
import type { SyncDeps } from './sync.js';

export interface MemoryDeps extends SyncDeps {
  audit: AuditLog;
  access: AccessStats;
  scoring: ScoringConfig;
  fusion: FusionOptions;
  lifecycle: LifecycleConfig;
  /** Decides reconciliation, summarises and extracts when configured; absent = deterministic offline rules. */
  llm?: Llm;
  /** Watches the root's files for `watch` (absent: watching is not available). */
  watchFiles?: WatchFiles;
  /** Injected so tests can move time (expiry). */
  now: () => Date;
}
