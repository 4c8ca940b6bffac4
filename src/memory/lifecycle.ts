// The memory lifecycle: default lifetimes per type, duplicate and grouping thresholds, gc grace, and when an expiry has passed.
import type { MemoryType } from './model.js';

const DAY = 24 * 60 * 60 * 1000;

/**
 * Stored for memories that never expire, so "not expired" is one comparison in a filter. Here, not in records.ts:
 * the index's worker thread needs it without records.ts's chunker (~0.1 s of CPU to load).
 */
export const NO_EXPIRY = 253402300799000; // 9999-12-31T23:59:59Z

export interface LifecycleConfig {
  /** Default lifetime of a new memory per type (ms); absent = never expires. */
  ttl: Partial<Record<MemoryType, number>>;
  /** Cosine similarity at or above which `add` treats a memory as already known (offline rule). */
  duplicateThreshold: number;
  /** How long an expired memory's file stays (marked expired) before `mem gc` deletes it. */
  gcGraceMs: number;
  /** Cosine similarity at or above which consolidation groups two episodic memories. */
  consolidateThreshold: number;
}

export const DEFAULT_LIFECYCLE: LifecycleConfig = {
  ttl: { working: DAY, episodic: 90 * DAY },
  duplicateThreshold: 0.95,
  gcGraceMs: 30 * DAY,
  consolidateThreshold: 0.88,
};

/**
 * Whether a memory whose front matter says `expires` (a validated ISO time, or none) is past it at `at` (ms): it is
 * ineligible from that moment, before `mem gc` marks its file expired. A number is the same time in ms, as the
 * manifest keeps it, so `mem status` applies the same rule without reading the files.
 */
export function hasLapsed(expires: string | number | null | undefined, at: number): boolean {
  if (expires === null || expires === undefined || expires === '') return false;
  return (typeof expires === 'number' ? expires : Date.parse(expires)) <= at;
}
