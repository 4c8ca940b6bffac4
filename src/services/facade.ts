// The Memory facade: binds every use case to one set of deps; the library API that the CLI and the MCP server are thin shells over.
// Each use case is loaded when first called: a command pays for its own modules only (a no-op `mem reindex` loaded
// search, ingest and consolidation too, with openai, zod and chrono-node).
import type { AddInput, AddResult } from './add.js';
import type { MemoryDeps } from './core/deps.js';
import type { MemoryRecord } from './core/documents.js';
import type { DoctorOptions, DoctorReport } from './doctor.js';
import type { ForgetInput, ForgetResult } from './forget.js';
import type { GetInput } from './get.js';
import type { ShowResult } from './show.js';
import type { GcInput, GcResult } from './gc.js';
import type { ConsolidateInput, ConsolidateResult } from './consolidate.js';
import type { IngestInput, IngestResult } from './ingest.js';
import type { ListInput, ListResult } from './list.js';
import type { SearchInput, SearchResults } from './search.js';
import type { ReindexOptions } from './reindex.js';
import type { StatusReport } from './status.js';
import type { ReindexReport } from './core/sync.js';
import type { WatchOptions, Watching } from './watch.js';
import type { RemoteSyncOptions, RemoteSyncResult } from './git-sync/remote-sync.js';

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
  /** Exchanges commits with the remote of a root that is its own repository (`mem sync`), then brings the index in step. */
  syncRemote(options?: RemoteSyncOptions): Promise<RemoteSyncResult>;
  close(): Promise<void>;
}

export function createMemory(deps: MemoryDeps, close: () => Promise<void>): Memory {
  return {
    root: deps.files.root,
    add: async (input) => (await import('./add.js')).addMemory(deps, input),
    search: async (input) => (await import('./search.js')).searchMemories(deps, input),
    get: async (input) => (await import('./get.js')).getMemory(deps, input),
    show: async (input) => (await import('./show.js')).showMemory(deps, input),
    list: async (input) => (await import('./list.js')).listMemories(deps, input),
    ingest: async (input) => (await import('./ingest.js')).ingestConversation(deps, input),
    reindex: async (options = {}) => (await import('./reindex.js')).reindex(deps, options),
    forget: async (input) => (await import('./forget.js')).forgetMemories(deps, input),
    gc: async (input = {}) => (await import('./gc.js')).collectGarbage(deps, input),
    consolidate: async (input) => (await import('./consolidate.js')).consolidateMemories(deps, input),
    status: async () => (await import('./status.js')).memoryStatus(deps),
    watch: async (options) => (await import('./watch.js')).watchMemory(deps, options),
    doctor: async (options) => (await import('./doctor.js')).doctor(deps, options),
    syncRemote: async (options) => (await import('./git-sync/remote-sync.js')).syncWithRemote(deps, options),
    close,
  };
}
