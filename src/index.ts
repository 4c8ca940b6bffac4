// The library entry: open a memory root and use it, as the CLI does.
export { loadConfig, type MemConfig } from './config.js';
export { openMemory, type OpenOptions } from './open-memory.js';
export type { Memory } from './services/memory.js';
export type { AddInput, AddResult } from './services/add.js';
export type { SearchInput, SearchResult } from './services/search.js';
export type { ForgetInput, ForgetResult } from './services/forget.js';
export type { ReindexReport } from './services/sync.js';
export type { StatusReport } from './services/status.js';
export type { DoctorOptions, DoctorProblem, DoctorReport } from './services/doctor.js';
export { findSecrets, type SecretFinding } from './memory/secrets.js';
export * from './errors.js';
