// The Memory facade: binds every use case to one set of deps; the library API that the CLI and the MCP server are thin shells over.
import { addMemory, type AddInput, type AddResult } from './add.js';
import type { MemoryDeps } from './core/deps.js';
import type { MemoryRecord } from './core/documents.js';
import { doctor, type DoctorOptions, type DoctorReport } from './doctor.js';
import { forgetMemories, type ForgetInput, type ForgetResult } from './forget.js';
import { getMemory, type GetInput } from './get.js';
import { showMemory, type ShowResult } from './show.js';
import { collectGarbage, type GcInput, type GcResult } from './gc.js';
import { consolidateMemories, type ConsolidateInput, type ConsolidateResult } from './consolidate.js';
import { ingestConversation, type IngestInput, type IngestResult } from './ingest.js';
import { listMemories, type ListInput, type ListResult } from './list.js';
import { searchMemories, type SearchInput, type SearchResults } from './search.js';
import { reindex, type ReindexOptions } from './reindex.js';
import { memoryStatus, type StatusReport } from './status.js';
import type { ReindexReport } from './core/sync.js';
import { watchMemory, type WatchOptions, type Watching } from './watch.js';

export interface Memory {
  readonly root: string;
  add(input: AddInput): Promise<AddResult>;
  /** The results carry `degraded` when an optional signal did not answer (the second dense field's model). */
  search(input: SearchInput): Promise<SearchResults>;
  get(input: GetInput): Promise<MemoryRecord>;
  /** A memory with its supersede chain, consolidation sources and git history. */
  show(input: GetInput): Promise<ShowResult>;
  /** One user's memories, newest first (active ones unless statuses say otherwise). */
  list(input: ListInput): Promise<ListResult>;
  /** Appends a conversation to the user's episodic log and, with an LLM, stores the memories in it. */
  ingest(input: IngestInput): Promise<IngestResult>;
  reindex(options?: ReindexOptions): Promise<ReindexReport>;
  forget(input: ForgetInput): Promise<ForgetResult>;
  /** Marks expired memories, removes them after the grace period. */
  gc(input?: GcInput): Promise<GcResult>;
  /** Folds related memories of a user into summaries that cite them. */
  consolidate(input: ConsolidateInput): Promise<ConsolidateResult>;
  status(): Promise<StatusReport>;
  /** Keeps the index in step with edits to the files until the returned handle is closed. */
  watch(options?: WatchOptions): Promise<Watching>;
  doctor(options?: DoctorOptions): Promise<DoctorReport>;
  close(): Promise<void>;
}

export function createMemory(deps: MemoryDeps, close: () => Promise<void>): Memory {
  return {
    root: deps.files.root,
    add: (input) => addMemory(deps, input),
    search: (input) => searchMemories(deps, input),
    get: (input) => getMemory(deps, input),
    show: (input) => showMemory(deps, input),
    list: (input) => listMemories(deps, input),
    ingest: (input) => ingestConversation(deps, input),
    reindex: (options = {}) => reindex(deps, options),
    forget: (input) => forgetMemories(deps, input),
    gc: (input = {}) => collectGarbage(deps, input),
    consolidate: (input) => consolidateMemories(deps, input),
    status: () => memoryStatus(deps),
    watch: (options) => watchMemory(deps, options),
    doctor: (options) => doctor(deps, options),
    close,
  };
}
