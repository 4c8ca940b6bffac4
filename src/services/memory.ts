// The Memory facade: the library API that the CLI (and later MCP) are thin shells over.
import { addMemory, type AddInput, type AddResult } from './add.js';
import type { MemoryDeps } from './deps.js';
import { doctor, type DoctorOptions, type DoctorReport } from './doctor.js';
import { forgetMemories, type ForgetInput, type ForgetResult } from './forget.js';
import type { Progress } from './ports.js';
import { searchMemories, type SearchInput, type SearchResult } from './search.js';
import { memoryStatus, type StatusReport } from './status.js';
import { syncIndex, type ReindexReport } from './sync.js';

export interface Memory {
  readonly root: string;
  add(input: AddInput): Promise<AddResult>;
  search(input: SearchInput): Promise<SearchResult[]>;
  reindex(options?: { rebuild?: boolean; progress?: Progress }): Promise<ReindexReport>;
  forget(input: ForgetInput): Promise<ForgetResult>;
  status(): Promise<StatusReport>;
  doctor(options?: DoctorOptions): Promise<DoctorReport>;
  close(): Promise<void>;
}

export function createMemory(deps: MemoryDeps, close: () => Promise<void>): Memory {
  return {
    root: deps.files.root,
    add: (input) => addMemory(deps, input),
    search: (input) => searchMemories(deps, input),
    reindex: (options = {}) => syncIndex(deps, options),
    forget: (input) => forgetMemories(deps, input),
    status: () => memoryStatus(deps),
    doctor: (options) => doctor(deps, options),
    close,
  };
}
