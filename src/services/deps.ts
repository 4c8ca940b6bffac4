// Everything the use cases need, assembled once by the composition root.
import { redactSecrets } from '../memory/secrets.js';
import type { AccessStats, AuditLog, Llm, WatchFiles, WriteJournal } from './ports.js';
import type { LifecycleConfig } from './lifecycle-config.js';
import type { FusionOptions } from './retrieval/fuse.js';
import type { ScoringConfig } from './retrieval/rescore.js';
import type { SyncDeps } from './sync.js';

export interface MemoryDeps extends SyncDeps {
  audit: AuditLog;
  /** The write in progress, so one killed midway is settled by the next writer. */
  journal: WriteJournal;
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

/**
 * One structured commit message per write: a subject line, then key: value lines for tools. Anything that looks
 * like a secret is redacted, even when the memory was stored with allowSecrets: history outlives a forget.
 */
export function commitMessage(action: string, fields: Record<string, string | undefined>, body?: string): string {
  const subject = `memdir: ${action} ${fields.id ?? fields.user ?? ''}`.trim();
  const lines = Object.entries({ action, ...fields })
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}: ${v}`);
  return redactSecrets([subject, '', ...lines, ...(body ? ['', body] : [])].join('\n'));
}
