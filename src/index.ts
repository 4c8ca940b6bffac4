// The library entry: open a memory root and use it, as the CLI and the MCP server do.
export { loadConfig, type MemConfig } from './config.js';
import type { MemConfig } from './config.js';
import { openMemory as openWired, type OpenOptions } from './open-memory.js';
import type { Memory } from './services/facade.js';
export type { OpenOptions, Memory };
/** Opens the memory root described by `config` (what a user sets: OpenOptions; memdir's own wiring hooks stay inside). */
export const openMemory: (config: MemConfig, options?: OpenOptions) => Promise<Memory> = openWired;
export type { AddInput, AddResult, ReconcileAction } from './services/add.js';
export type { SearchInput, SearchResult, SearchResults, SearchDegraded, ScoreComponents, SearchMode } from './services/search.js';
export type { GetInput } from './services/get.js';
export type { GcInput, GcResult } from './services/gc.js';
export type { ConsolidateInput, ConsolidateResult } from './services/consolidate.js';
export type { ShowResult, ChainLink } from './services/show.js';
export type { ListInput, ListResult } from './services/list.js';
export type { MemoryRecord } from './services/core/documents.js';
export type { ForgetInput, ForgetResult } from './services/forget.js';
export type { ReindexReport, FileError } from './services/core/sync.js';
export type { StatusReport } from './services/status.js';
export type { WatchOptions, WatchSyncEvent, Watching } from './services/watch.js';
export type { IngestInput, IngestResult, IngestedMemory } from './services/ingest.js';
export type { Turn, TranscriptFormat } from './services/ingest/transcript.js';
export type { MemoryType, MemoryStatus } from './memory/model.js';
export type { DoctorOptions, DoctorProblem, DoctorReport } from './services/doctor.js';
export { findSecrets, type SecretFinding } from './memory/secrets.js';
export * from './errors.js';
