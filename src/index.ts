// The library entry: open a memory root and use it, as the CLI does.
export { loadConfig, type MemConfig } from './config.js';
export { openMemory, type OpenOptions } from './open-memory.js';
export type { Memory } from './services/memory.js';
export type { AddInput, AddResult } from './services/add.js';
export type { SearchInput, SearchResult } from './services/search.js';
export type { GetInput } from './services/get.js';
export type { GcInput, GcResult } from './services/gc.js';
export type { ConsolidateInput, ConsolidateResult } from './services/consolidate/consolidate.js';
export type { ShowResult, ChainLink } from './services/show.js';
export type { MemoryRecord } from './services/documents.js';
export type { ForgetInput, ForgetResult } from './services/forget.js';
export type { ReindexReport } from './services/sync.js';
export type { StatusReport } from './services/status.js';
export * from './errors.js';
