// The narrow interfaces through which services reach the outside world. Adapters implement them.
import type { ChunkRecord, RowKind } from '../memory/records.js';
import type { MemoryStatus, MemoryType } from '../memory/model.js';

/** Which rows an index operation may touch. Every field narrows; values are validated by the adapter's filter builder. */
export interface IndexScope {
  /** One user, or the explicit opt-in to all users. */
  users: string[] | 'all';
  statuses?: MemoryStatus[];
  types?: MemoryType[];
  /** Only rows whose expiry is after this time (epoch ms). */
  notExpiredAt?: number;
  paths?: string[];
  memoryIds?: string[];
  tags?: string[];
}

/** Lines [lineStart, lineEnd] of one file. */
export interface LineSpan {
  path: string;
  lineStart: number;
  lineEnd: number;
}

export interface IndexedChunk extends ChunkRecord {
  vector: number[];
  /** The second dense field's vector of a unit's bare text, when the index has one (services/core/second-vectors.ts). */
  vector2?: number[];
}

export interface IndexHit {
  record: Omit<ChunkRecord, 'textHash'>;
  /** Higher is better. */
  score: number;
}

/**
 * One retrieval signal at a time; fusion happens in the service, where every score can be explained.
 * `kind` (default 'unit'): the rows searched; windows are asked for only as a signal for units.
 */
export type IndexSearchRequest = (
  | { mode: 'dense'; scope: IndexScope; queryVector: number[]; limit: number }
  | { mode: 'bm25'; scope: IndexScope; queryText: string; limit: number }
  // The second dense field (units only): a query vector of the second model.
  | { mode: 'second'; scope: IndexScope; queryVector: number[]; limit: number }
) & { kind?: RowKind };

export interface EmbeddingModelIdentity {
  name: string;
  dimension: number;
}

export interface OpenOptions {
  recheck?: boolean;
}

// The index is reached through roles, each use case through the narrowest ones it needs (ARCHITECTURE.md, "Ports"):
// a search cannot drop the collection, a status cannot write, and only the composition root closes the connection.

/** Opening the collection of one embedding model: what every user of the index does before anything else. */
export interface IndexOpener {
  /**
   * Creates the collection for this model, or checks that the existing one was built with it. Returns the
   * collection's instance id, a random id given when it was created (undefined for one created before memdir gave
   * them): a manifest records the instance it describes, so an index dropped and created anew is noticed.
   * An index already open answers from memory; `recheck` asks the server again, since another process (a purge's
   * rebuild) may have dropped and created the collection since this one opened it.
   */
  open(model: EmbeddingModelIdentity, options?: OpenOptions): Promise<string | undefined>;
}

/** The questions retrieval asks: the search use case, and reconciliation's look for similar memories. */
export interface IndexSearcher {
  /** A window hit may come back without its heading and content: windows are a signal, never shown. */
  search(request: IndexSearchRequest): Promise<IndexHit[]>;
  /** The unit rows of the scope whose lines lie inside one of these spans of their file (the units of a window), at most `limit`. */
  unitsWithin(scope: IndexScope, spans: LineSpan[], limit: number): Promise<IndexHit['record'][]>;
}

/** The sync's writes (and a removal's deletes): rows in, rows out. */
export interface IndexWriter {
  upsert(rows: IndexedChunk[]): Promise<void>;
  /**
   * Adds rows whose chunk ids the collection does not hold (a bulk load into a fresh collection): no lookup of existing
   * rows. Only the sync's plan knows which rows are new (from its manifest), so the choice stays with it.
   */
  insert(rows: IndexedChunk[]): Promise<void>;
  /** Deletes the rows with these chunk ids (by primary key: no scan of other rows). */
  deleteChunks(chunkIds: string[]): Promise<void>;
  /** Deletes the rows of these paths whose chunk id is not in `keep` (chunk ids are unique per path). */
  deleteStale(paths: string[], keep: string[]): Promise<void>;
  delete(scope: IndexScope): Promise<void>;
  /**
   * Seals recent writes into indexed storage (searches of unsealed rows are brute force). The sync calls it when its
   * writes end, and decides how long to wait for it (core/sync-scheduling.ts boundedFlush).
   */
  flush(): Promise<void>;
}

/** What the index holds, for checking it against the files: status, doctor, a removal's verification, a sync without a manifest. */
export interface IndexInventory {
  /** A human description of where the index lives (for status output). */
  readonly location: string;
  count(scope: IndexScope): Promise<number>;
  /** Distinct paths that have rows (for finding orphans). */
  listPaths(): Promise<string[]>;
  /** Every row's chunk id and path (for checking the index against the files). */
  listChunks(): Promise<{ chunkId: string; path: string }[]>;
}

/** The storage as a whole: dropped for a rebuild, compacted so that deleted rows' bytes leave it (a purge). */
export interface IndexStorage {
  /** Drops everything (for a rebuild). */
  drop(): Promise<void>;
  /**
   * Rewrites storage so deleted rows are gone from it: 'compacted' when the server did it and said so,
   * 'requested' when it accepted but had not finished in time, 'unsupported' when it cannot (Milvus Lite:
   * the caller rebuilds the collection instead).
   */
  compact(): Promise<'compacted' | 'requested' | 'unsupported'>;
}

/** Every role: what the adapters implement and the composition root holds; only it closes the connection. */
export interface VectorIndex extends IndexOpener, IndexSearcher, IndexWriter, IndexInventory, IndexStorage {
  close(): Promise<void>;
}

/** A chat model that answers with one JSON object (OpenAI-compatible endpoint). Services validate the answer. */
export interface Llm {
  readonly model: string;
  /** Sends a system and a user message; returns the parsed JSON answer, or throws LlmError. */
  completeJson(request: { system: string; user: string }): Promise<unknown>;
}

/** A relevance model over (query, document) pairs, e.g. a cross-encoder behind a `/rerank` endpoint. */
export interface Reranker {
  readonly model: string;
  /** One score per document, in the documents' order, higher = more relevant; throws on failure or timeout. */
  rerank(query: string, documents: string[]): Promise<number[]>;
}

/** Rewrites a search query into one that retrieves better (a chat model); throws on failure or timeout. */
export interface QueryRewriter {
  readonly model: string;
  rewrite(query: string): Promise<string>;
}

export interface Embedder {
  readonly identity: EmbeddingModelIdentity;
  embedDocuments(texts: string[]): Promise<number[][]>;
  embedQuery(text: string): Promise<number[]>;
}

/** Vectors by text hash, for one model; survives index rebuilds. */
export interface VectorCache {
  getMany(hashes: string[]): Promise<Map<string, number[]>>;
  putMany(entries: Map<string, number[]>): Promise<void>;
  removeMany(hashes: string[]): Promise<void>;
  /** Removes every cached vector whose hash is not in `keep`; returns how many went. */
  retain(keep: Set<string>): Promise<number>;
  /** Releases the store (optional: a cache that holds nothing open has nothing to release). */
  close?(): Promise<void>;
  /** Loads what its first read needs, ahead of it (optional): a sync that will read files calls it before its loop. */
  preload?(): Promise<void>;
}

export interface FileStat {
  path: string;
  size: number;
  mtimeMs: number;
}

/** The memory files under the root. Paths are relative, forward slashes. */
export interface MemoryFiles {
  readonly root: string;
  /** Every memory file; with folders, only those under these top-level folders (and the root's own files). */
  scan(options?: { folders?: string[] }): Promise<{ files: FileStat[]; problems: { path: string; message: string }[] }>;
  stat(path: string): Promise<FileStat | null>;
  /**
   * Why the scan skips this path though it names a memory file (a symlink outside the root, broken, or to another
   * memory file), or null: `stat` says only that there is no file, and `mem watch` must say why, as the scan does.
   */
  skipReason?(path: string): Promise<string | null>;
  /** Whether the root folder is still there: a watch stops on a root deleted under it (a sync would create `.mem/` again). */
  rootExists?(): Promise<boolean>;
  read(path: string): Promise<Uint8Array>;
  /** Atomic write (temp file + rename); creates folders. */
  write(path: string, text: string): Promise<void>;
  remove(path: string): Promise<void>;
}

/** What the last sync saw of each file: lets an unchanged file be skipped without reading it. */
export interface ManifestEntry {
  size: number;
  mtimeMs: number;
  sha: string;
  memoryId: string;
  user: string;
  type: MemoryType;
  /** The effective status: what the index rows carry once the sync is done (see services/core/links.ts). */
  status: MemoryStatus;
  /** The status the file itself says, when a correction or summary naming it overrides it. */
  fileStatus?: MemoryStatus;
  expires?: number;
  /** Lifecycle links, so reconciliation and forgetting find related memories without reading every file. */
  key?: string;
  source?: string;
  supersedes?: string | string[];
  sources?: string[];
  supersededBy?: string;
  consolidatedInto?: string;
  /** How many rows the file has in the index; the rows themselves are in its chunk list (ManifestStore.chunksOf). */
  chunkCount: number;
  /** The index may hold rows of this path that `chunks` does not list (a sync was killed writing it, or no manifest said): remove them by path. */
  unknownRows?: true;
}

/** One index row of a file: its chunk id and the hash of the text embedded (the vector cache's key). */
export interface ChunkRef {
  id: string;
  textHash: string;
}

/** The rows a sync just wrote for a file, for the content with this sha. */
export interface ChunkList {
  path: string;
  sha: string;
  chunks: ChunkRef[];
}

/**
 * The manifest: per file what a no-op sync, link resolution and lookups need (held in memory), and apart from it
 * each file's chunk list (what a rewrite or removal deletes), read only for the files that ask for it.
 */
export interface ManifestStore {
  /** Cheap check for "this root was indexed before" (no parse). */
  exists(): Promise<boolean>;
  load(): Promise<Map<string, ManifestEntry> | null>;
  /** When the entries were last saved (ms since the epoch, from the files' mtimes; null: never), without reading them. */
  savedAt?(): Promise<number | null>;
  /** Saves the entries; the chunk lists of entries no longer there are removed with them. */
  save(entries: Map<string, ManifestEntry>): Promise<void>;
  /** True when the loaded manifest lost its journal (a kill between the two writes): the next save rewrites it even if no entry changed. */
  needsRewrite(): boolean;
  /**
   * The chunk lists of these entries, as putChunks recorded them for the entry's content (an entry whose file a
   * sync may have left half-written — sha '' — gets the last list recorded). An entry without a list known to
   * match is missing from the answer: its rows can only be found by path.
   */
  chunksOf(entries: Iterable<[string, ManifestEntry]>): Promise<Map<string, ChunkRef[]>>;
  /** Records the rows just written for these files (before the save that gives them their entries). */
  putChunks(lists: ChunkList[]): Promise<void>;
  /** Every text hash of the chunk lists of these entries (which cached vectors are still used). */
  textHashes(entries: Map<string, ManifestEntry>): Promise<Set<string>>;
  /**
   * Records, before their rows are written, paths whose rows the saved entries do not describe; until the
   * next save, load() returns them with `unknownRows`. Appends only: cheap enough for every batch of a sync.
   */
  markPending(paths: string[]): Promise<void>;
  /** Forgets everything, so the next sync asks the index what it holds (done before an index is dropped). */
  clear(): Promise<void>;
  /** The instance id of the collection the entries describe (IndexOpener.open), or null when none was recorded. */
  indexInstance(): Promise<string | null>;
  /** Records the collection the entries describe (by a sync that starts without entries, before it writes). */
  bindIndex(instance: string): Promise<void>;
}

export interface AuditEntry {
  commit: string;
  /** ISO 8601 author date. */
  date: string;
  subject: string;
}

export interface PurgeScope {
  /** The top folder of the repository holding the root. */
  repository: string;
  /** True when the root is that top folder: the repository holds nothing but the memories. */
  rootIsRepository: boolean;
  branches: string[];
  /** Tracked files changed but not committed: a rewrite would refuse to run over them. */
  uncommitted: number;
}

export interface AuditLog {
  /** Commits exactly these paths (added, changed or removed) with the message, but none git ignores and does not track; no-op when disabled. */
  commit(paths: string[], message: string): Promise<void>;
  /** Commits that touched this path, newest first, following renames; empty when disabled or untracked. */
  history(path: string): Promise<AuditEntry[]>;
  /** Rewrites the repository's history so these paths are gone from every commit (and unreachable objects pruned). */
  purge(paths: string[]): Promise<void>;
  /**
   * Memory files (`.md`, relative paths) under the root, or among `paths`, whose working copy or staged state
   * differs from the last commit: untracked, changed, staged or deleted. Empty when disabled or not in a repository.
   */
  uncommitted(paths?: string[]): Promise<string[]>;
  /**
   * Memory files (`.md`, relative paths) under the root that git ignores and does not track: outside the audit
   * trail. Empty when disabled or not in a repository.
   */
  ignored(): Promise<string[]>;
  /** Puts the staged state of these paths back to the last commit (what a rolled-back write had staged). */
  unstage(paths: string[]): Promise<void>;
  /** What a purge would rewrite: the repository holding the root, whether it is the root itself, and its branches. */
  purgeScope(): Promise<PurgeScope | null>;
  /** The identity commits are made as (`Name <email>`), for audit records. */
  author(): Promise<string>;
  /** How many git objects (any reachable or not, packed or loose) contain any of these byte strings. */
  objectsContaining(needles: string[]): Promise<{ objects: number; hits: number }>;
  /** Memory files (relative paths) under the root that git left unmerged; absent where the log cannot tell. */
  unmerged?(): Promise<string[]>;
  /** Does nothing when disabled. */
  readonly enabled: boolean;
}

/** When each memory was last returned by a search; kept outside the Markdown files so reads don't write to git. */
export interface AccessRecord {
  lastAccessed: number;
  count: number;
}

export interface AccessStats {
  /** Keys are `user` + NUL + `memory id`. */
  get(keys: string[]): Promise<Map<string, AccessRecord>>;
  /** Records an access; may complete in the background (see settle). */
  touch(keys: string[], at: number): void;
  remove(keys: string[]): Promise<void>;
  /** Removes every record whose key is not in `keep`; returns how many went. */
  retain(keep: Set<string>): Promise<number>;
  /** Waits for background updates (call before the process exits). */
  settle(): Promise<void>;
}

export const accessKey = (user: string, memoryId: string) => `${user}\u0000${memoryId}`;

/** A write in progress: recorded before its files change, so that one killed midway is found and settled. */
export interface PendingWrite {
  action: string;
  /** ISO time the write began. */
  started: string;
  /** Every path the write may change, with its bytes before (base64; null: there was no file). */
  before: Record<string, string | null>;
}

/** At most one write is in progress per root (writes hold the lock); a record left behind means it was interrupted. */
export interface WriteJournal {
  begin(write: PendingWrite): Promise<void>;
  /** The write finished (or was settled): forget it. */
  end(): Promise<void>;
  pending(): Promise<PendingWrite | null>;
}

/** The root's private state folder as a whole: what forgetting must leave without a copy of the text. */
export interface StateResidue {
  /** Records that index rows were deleted since the last purge (their bytes may remain in index storage). */
  markDeleted(): Promise<void>;
  deletedSinceLastPurge(): Promise<boolean>;
  clearDeleted(): Promise<void>;
  /** Reads every file of the state folder; returns how many were read and which (relative paths) hold any needle. */
  scan(needles: Uint8Array[]): Promise<{ files: number; hits: string[] }>;
}

export interface WriteLock {
  /** Runs `fn` while holding the memory root's write lock (across processes). */
  run<T>(fn: () => Promise<T>): Promise<T>;
}

/** A change under the memory root: one memory file (relative path, forward slashes), or "look at everything again". */
export type FileChange = { kind: 'file'; path: string } | { kind: 'rescan'; reason: string };

/** A running watch of the memory root; only Markdown files outside `.git/` and `.mem/` are reported. */
export interface FileWatcher {
  close(): Promise<void>;
}

/** Starts watching the memory root; resolves once changes from then on are reported. */
export type WatchFiles = (onChange: (change: FileChange) => void) => Promise<FileWatcher>;

export interface Progress {
  start(total: number, label: string): void;
  tick(n?: number): void;
  stop(): void;
}

export const silentProgress: Progress = { start() {}, tick() {}, stop() {} };

/** Text files outside the memory root, by absolute path: coding agents' configuration, their transcripts. */
export interface TextFiles {
  /** The file's text, or null when there is none. */
  read(path: string): Promise<string | null>;
  /**
   * Atomic (temp file + rename); creates missing folders and returns those it created, outermost first. `ownerOnly`
   * names a folder above the file: it and every folder from it down to the file are made owner-only, the file too.
   */
  write(path: string, text: string, options?: { ownerOnly?: string }): Promise<string[]>;
  remove(path: string): Promise<void>;
  /** Removes each of these folders that is empty, deepest first. */
  removeEmptyDirs(dirs: string[]): Promise<void>;
}

/** Where capture of one agent session has got to: lines of its transcript already captured. */
export interface CaptureCursor {
  lines: number;
}

/** One run of an agent hook, as `mem status` and `mem doctor` report it. */
export interface HookLogEntry {
  at: string;
  agent: string;
  event: string;
  ok: boolean;
  ms: number;
  session?: string;
  /** What happened (turns captured, memories injected, the fallback taken). */
  detail?: string;
  /** Why it failed or fell back. */
  error?: string;
  /** What to do about it. */
  hint?: string;
}

/** The agent integration's state under a root's `.mem/hooks/`: capture cursors, held hook inputs and the hook log. */
export interface HookState {
  /** Runs fn with one session's cursor and saves the cursor it returns; one holder per root at a time. */
  withCursor<T>(key: string, fn: (cursor: CaptureCursor) => Promise<{ cursor: CaptureCursor; result: T }>): Promise<T>;
  /** Runs fn as the root's only capture (the lock withCursor holds). */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** Keeps a hook input for the background capture in an owner-only file; returns its path. */
  hold(text: string): Promise<string>;
  /** The held inputs not touched for `olderThanMs` (a capture that failed or was killed), oldest first. */
  held(olderThanMs: number): Promise<string[]>;
  /** Deletes a held input once its capture is done (or it can never be). */
  release(path: string): Promise<void>;
  log(entry: HookLogEntry): Promise<void>;
  /** The logged runs, oldest first (the log keeps the most recent ones). */
  entries(): Promise<HookLogEntry[]>;
}

/** One captured turn's identity (a hash, never its text) and the day log it went to. */
export interface CapturedTurn {
  key: string;
  path: string;
}

/**
 * Which conversation turns a root already holds or was told to forget, by identity alone: capture stores a turn
 * once per root, and never again once forgotten (on any machine the tombstones reach through git).
 */
export interface TurnLedger {
  /** Keys of every turn captured into the root or forgotten from it. */
  known(): Promise<Set<string>>;
  record(turns: CapturedTurn[]): Promise<void>;
  /** Writes tombstones (hashes only) for the turns captured into these removed files; returns them root-relative, to commit. */
  forget(paths: string[]): Promise<string[]>;
}

/** Where a memory root sits in git, as `mem sync` sees it. */
export type RepositoryPlace =
  | { kind: 'none' }
  /** A folder of a larger repository (a project's code): its memory travels with that repository's own git flow. */
  | { kind: 'project'; repository: string }
  /** The root is its own repository; remote is null when none is configured. */
  | { kind: 'own'; branch: string; remote: string | null; remoteBranch: string; url: string | null };

/** What a sync in progress changed, recorded before each change: enough to put the repository back, or to finish. */
export interface SyncRecord {
  /** git: the repository may be mid-merge (put back on settling); index: git is done, the index is still to follow. */
  phase: 'git' | 'index';
  started: string;
  /** HEAD before the sync (null: no commit yet). */
  head: string | null;
  /** The staged state before the sync, as a tree (null: nothing staged beyond HEAD, or no commit yet). */
  indexTree: string | null;
  /** The remote synced with, its remote-tracking ref, and the ref's value before the fetch. */
  remote: string;
  trackingRef: string;
  tracking: string | null;
  /** The commit the sync made of what was left uncommitted. */
  committed?: string;
  /** With phase index: HEAD before the incoming commits, and after. */
  from?: string | null;
  to?: string;
  /** The history was rewritten (a purge): objects left only in old commits must go from this clone. */
  rewritten?: boolean;
}

/** What changed between two commits among the root's files (paths relative to the root). */
export interface TreeChanges {
  added: string[];
  changed: string[];
  deleted: string[];
}

/** The memory root's own git repository and its remote: what `mem sync` does with git. */
export interface MemoryRepository {
  place(): Promise<RepositoryPlace>;
  /** The record of a sync that did not finish (killed), or null. */
  pendingSync(): Promise<SyncRecord | null>;
  saveSync(record: SyncRecord): Promise<void>;
  endSync(): Promise<void>;
  /** HEAD, the staged state and the remote-tracking ref of this branch, as they are now. */
  snapshot(remote: string, branch: string): Promise<Omit<SyncRecord, 'phase' | 'started' | 'remote'>>;
  /** The remote branch's commit (null: the remote has no such branch yet); throws when the remote cannot be reached. */
  remoteTip(remote: string, branch: string): Promise<string | null>;
  /** Fetches the branch into its remote-tracking ref (forced: a rewritten history is taken as it is). */
  fetch(remote: string, branch: string): Promise<void>;
  /** Commits every change under the root (added, changed, deleted; not what git ignores); null when there was none. */
  commitAll(message: (files: string[]) => Promise<string>): Promise<{ commit: string; files: string[] } | null>;
  /** Whether `ancestor` is `descendant` or one of its ancestors. */
  contains(ancestor: string, descendant: string): Promise<boolean>;
  /** Whether the commit is in this clone's object store. */
  has(commit: string): Promise<boolean>;
  head(): Promise<string | null>;
  /** The merge, rebase, cherry-pick or revert under way in the repository (null: none). */
  operationInProgress(): Promise<string | null>;
  /** Merges the commit; returns the paths left unmerged ([] once merged and committed). */
  merge(commit: string, message: string): Promise<string[]>;
  /** Replays the commits of HEAD that `upstream` lacks onto `onto`; returns the paths left unmerged at the first stop. */
  rebase(onto: string, upstream: string): Promise<string[]>;
  /** Goes on with the merge or rebase once its unmerged paths are settled; returns the paths unmerged at the next stop. */
  continueOperation(message: string): Promise<string[]>;
  /** Pushes HEAD to the remote branch; `lease`: only if the remote branch is still that commit (a rewritten history). */
  push(remote: string, branch: string, lease?: string | null): Promise<void>;
  /** Puts HEAD, the staged state, the files and the remote-tracking ref back as the record says they were. */
  restore(record: SyncRecord): Promise<void>;
  changes(from: string | null, to: string): Promise<TreeChanges>;
  /** How many commits `to` has that `from` lacks, and how many of them are memdir's forgets. */
  commitsBetween(from: string | null, to: string): Promise<{ commits: number; forgets: number }>;
  /**
   * When `tip` carries a purge (`forget --purge-history`) that `head` lacks, the commit of the old history this clone's own
   * commits start from: the newest value the remote-tracking ref had that `head` contains and `tip` does not (a `git
   * fetch` run by hand moves the ref, its log keeps the old value). Null when there is no such purge or value.
   */
  oldHistoryBase(trackingRef: string, head: string, tip: string): Promise<string | null>;
  /** Drops what only old history held: reflogs expired, unreachable objects pruned here and, for a remote that is a folder, there. */
  prune(remote: string): Promise<void>;
  /** The commit a local `forget --purge-history` rewrote this remote-tracking ref from (null: none). */
  purgedFrom(trackingRef: string): Promise<string | null>;
  clearPurged(trackingRef: string): Promise<void>;
}

/** The merge driver's part in a sync: settling what git leaves unmerged (the driver itself is registered by every opening). */
export interface MergeSettler {
  /** Resolves unmerged memory files by memdir's rules and stages them; returns the paths still unmerged. */
  settle(paths: string[]): Promise<string[]>;
}

/** A memory file git left unmerged (both changed it and no driver ran, or one side deleted it): each side's text. */
export interface UnmergedFile {
  /** Relative to the root. */
  path: string;
  /** Undefined: no common ancestor (both added it). */
  base?: string;
  /** Undefined: that side deleted it. */
  ours?: string;
  theirs?: string;
}

/** The git merge, rebase, cherry-pick or revert a person (or `mem sync`) left with memory files unmerged. */
export interface UnmergedFiles {
  /** What is under way ('merge', 'rebase', 'cherry-pick', 'revert'), or undefined. */
  operation(): Promise<string | undefined>;
  /** The memory files under the root git left unmerged. */
  list(): Promise<UnmergedFile[]>;
  /** The full message of the commit on that side that deleted the path, if one did. */
  deletion(path: string, side: 'ours' | 'theirs'): Promise<string | undefined>;
  /** Writes the settled text (null: removes the file) and marks the path resolved in git's index. */
  resolve(path: string, text: string | null): Promise<void>;
}
