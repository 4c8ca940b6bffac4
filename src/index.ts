// The library entry: open a memory root and use it, as the CLI and the MCP server do.
export { loadConfig, type MemConfig } from './config.js';
export { openMemory, type OpenOptions } from './open-memory.js';
export type { Memory } from './services/memory.js';
export type { AddInput, AddResult, ReconcileAction } from './services/add.js';
export type { SearchInput, SearchResult, ScoreComponents, SearchMode } from './services/search.js';
export type { GetInput } from './services/get.js';
export type { ListInput, ListResult } from './services/list.js';
export type { MemoryRecord } from './services/documents.js';
export type { ForgetInput, ForgetResult } from './services/forget.js';
export type { ReindexReport, FileError } from './services/sync.js';
export type { StatusReport } from './services/status.js';
export type { WatchOptions, WatchSyncEvent, Watching } from './services/watch.js';
export type { IngestInput, IngestResult, IngestedMemory } from './services/ingest/ingest.js';
export type { Turn, TranscriptFormat } from './services/ingest/transcript.js';
export type { MemoryType, MemoryStatus } from './memory/model.js';
export * from './errors.js';
