// Incremental sync of the memory files into the index: scan, parse, chunk, diff against the manifest,
// embed only new texts, upsert, then delete what is stale. Safe to kill at any point: the next run converges.
import { errorMessage } from '../../errors.js';
import type { ChunkOptions } from '../../memory/chunk.js';
import { sha256 } from '../../memory/hash.js';
import type { MemoryStatus } from '../../memory/model.js';
import type { ChunkRecord } from '../../memory/records.js';
import { linkChanges, withStatus, type LinkProblem } from './links.js';
import type {
  Embedder,
  FileStat,
  IndexInventory,
  IndexOpener,
  IndexStorage,
  IndexWriter,
  ManifestEntry,
  ManifestStore,
  MemoryFiles,
  Progress,
  StateResidue,
  VectorCache,
  WriteLock,
} from '../ports.js';
import { silentProgress } from '../ports.js';
import { duplicateIdErrors } from './duplicates.js';
import { embedAhead, type AheadVectors } from './embed-ahead.js';
import type { FileError } from './file-records.js';
import {
  MANIFEST_SAVE_INTERVAL_MS,
  RECORDS_PER_BATCH,
  UNKNOWN_ENTRY,
  UNSURE_SHA,
  WRITE_BATCH_ROWS,
  batchWrites,
  differs,
  everyEntry,
  gonePaths,
  progressOf,
  progressSaveDue,
  tooLargeError,
  unchangedByStat,
  type ParsedFile,
} from './sync-plan.js';
import { SMALL_WRITE_ROWS, boundedFlush, headStart, once, openedOnFirstUse } from './sync-scheduling.js';

export type { FileError } from './file-records.js';
export { progressSaveDue, tooLargeError } from './sync-plan.js';

/**
 * The parser and chunker (front matter, Markdown, zod: ~150 ms of module loading), loaded by the first file that
 * must be read: a no-op sync reads none.
 */
const fileRecords = () => import('./file-records.js');

/**
 * What a sync asks of the index: the collection opened (dropped first for a rebuild), rows written and deleted, and,
 * without a manifest, which paths it holds.
 */
export type SyncIndex = IndexOpener & IndexWriter & Pick<IndexStorage, 'drop'> & Pick<IndexInventory, 'listPaths'>;

export interface SyncDeps {
  files: MemoryFiles;
  index: SyncIndex;
  embedder: Embedder;
  cache: VectorCache;
  /** The second dense field's vector cache, keyed like `cache`: pruned with it. */
  secondCache?: VectorCache;
  manifest: ManifestStore;
  lock: WriteLock;
  chunking: ChunkOptions;
  defaultUser: string;
  embedBatchSize: number;
  /** Larger files are reported and skipped (a 20 MB log is not a memory). */
  maxFileBytes: number;
  /** Tracks deletions whose bytes a purge must still remove from index storage. */
  residue: StateResidue;
  /** How often a long sync saves its progress (default 5 s; tests use 0: after every batch). */
  manifestSaveIntervalMs?: number;
  /** Rows written per batch (default 500; tests use fewer, so that a few files make several batches). */
  writeBatchRows?: number;
  /**
   * Called once the sync knows it will write to an index it has a manifest for: the index may start loading its
   * client elsewhere (a worker thread) while this sync reads, parses and embeds. Absent: the index loads on first use.
   */
  prepareIndex?: () => void;
}

export interface ReindexReport {
  files: number;
  chunks: number;
  embedded: number;
  upserted: number;
  deleted: number;
  skipped: number;
  errors: FileError[];
  /** Set when the index the manifest described had been replaced by an empty one, so every file was indexed again. */
  indexReplaced?: true;
}

export interface SyncOptions {
  /** Drop the index and rebuild it from the files (cached vectors are reused). */
  rebuild?: boolean;
  /** Open the index first, even if nothing is to be written: checks that the manifest describes it (checkInstance). */
  checkIndex?: boolean;
  /** Sync only these paths (others keep their manifest entries); a missing path is a deletion. */
  only?: string[];
  progress?: Progress;
}

/** Runs under the write lock; the lock is re-entrant, so a use case that already holds it (add, forget) calls this too. */
export async function syncIndex(deps: SyncDeps, options: SyncOptions = {}): Promise<ReindexReport> {
  return deps.lock.run(() => syncUnderLock(deps, options));
}

/** The collection the manifest describes is gone, and an empty one of the same name is there (see checkInstance). */
class IndexReplaced extends Error {}

async function syncUnderLock(deps: SyncDeps, options: SyncOptions): Promise<ReindexReport> {
  const first = emptyReport();
  try {
    return await syncOnce(deps, options, first);
  } catch (err) {
    if (!(err instanceof IndexReplaced)) throw err;
    // Its rows went with it, so the manifest vouches for none: every file is indexed again (vectors from the cache).
    await deps.manifest.clear();
    const retry = await syncOnce(deps, { ...options, only: undefined });
    // The first attempt embedded before the open found the new collection; the retry took those vectors from the cache.
    return { ...retry, embedded: retry.embedded + first.embedded, indexReplaced: true };
  }
}

function emptyReport(): ReindexReport {
  return { files: 0, chunks: 0, embedded: 0, upserted: 0, deleted: 0, skipped: 0, errors: [] };
}

/**
 * Called when a sync first opens the index. A sync that starts without entries records the collection it builds
 * them for; one that has entries checks that they describe this collection, not one dropped since (the servers'
 * data deleted, the collection dropped by hand) whose name an empty one now has: searches would find nothing and
 * every unchanged file would be skipped. A collection from before instance ids has none to compare. An index this
 * process (or the search daemon) opened before another process rebuilt the collection (a purge) still remembers the
 * old id: `recheck` asks the server, so a rebuild that the manifest already describes is not taken for a replacement.
 */
async function checkInstance(
  manifest: SyncDeps['manifest'],
  instance: string | undefined,
  hasEntries: boolean,
  recheck: () => Promise<string | undefined>,
): Promise<void> {
  if (instance === undefined) return;
  const bound = await manifest.indexInstance();
  if (bound === instance) return;
  if (hasEntries && bound !== null && (await recheck()) === bound) return;
  if (hasEntries) throw new IndexReplaced(`the index was created anew since the last sync`);
  await manifest.bindIndex(instance);
}

async function syncOnce(deps: SyncDeps, options: SyncOptions, report = emptyReport()): Promise<ReindexReport> {
  if (options.rebuild) {
    // Manifest first: killed between the two, the next sync must not trust it for an index that is gone.
    await deps.manifest.clear();
    await deps.index.drop();
    await deps.index.open(deps.embedder.identity);
  }
  // A full sync scans before it reads the manifest: a file modified since the last save starts the index's client
  // loading then (on another thread, when it may be prepared) and its new texts' embedding, alongside the manifest's
  // load and the loop over the unchanged files.
  const prepare = once(deps.prepareIndex);
  const early = !options.rebuild && !options.only ? await scanFirst(deps, prepare) : undefined;
  const ahead = early ? embedAhead(deps, early.changed) : undefined;
  try {
    // The manifest's load holds the event loop: the request goes out first.
    await ahead?.sent;
    return await syncScanned(deps, options, report, prepare, early?.scanned, ahead?.done);
  } finally {
    await ahead?.done; // it never rejects; no request of this sync outlives its lock
  }
}

/** The rest of a sync once the scan (`early`, for a full sync) is known; `ahead`: the vectors embedded meanwhile. */
async function syncScanned(
  deps: SyncDeps,
  options: SyncOptions,
  report: ReindexReport,
  prepare: (() => void) | undefined,
  early: Awaited<ReturnType<MemoryFiles['scan']>> | undefined,
  ahead: Promise<AheadVectors> | undefined,
): Promise<ReindexReport> {
  const progress = options.progress ?? silentProgress;
  const previous = options.rebuild ? null : await deps.manifest.load();
  const manifest = deps.manifest;
  const own = deps.index;
  const recheck = () => own.open(deps.embedder.identity, { recheck: true });
  deps = { ...deps, index: openedOnFirstUse(own, deps.embedder.identity, (instance) => checkInstance(manifest, instance, previous !== null, recheck)) };
  if (options.checkIndex) await deps.index.open(deps.embedder.identity);
  // Without a manifest a partial sync cannot know what else is indexed: do a full one.
  if (!previous) options = { ...options, only: undefined };
  // Files whose rows a killed sync may have left in another state than the manifest says (see applyLinks): re-read them too.
  if (options.only && previous) {
    const unsure = [...previous].filter(([path, e]) => e.sha === UNSURE_SHA && !options.only!.includes(path)).map(([path]) => path);
    if (unsure.length > 0) options = { ...options, only: [...options.only, ...unsure] };
  }
  // Without a manifest the index itself says which paths it holds (rows of files gone since are removed).
  const indexed = !previous && !options.rebuild ? await deps.index.listPaths() : [];
  const next = new Map<string, ManifestEntry>(options.only && previous ? previous : []);
  // What the index holds for files not processed yet: saved with the progress, so a sync killed
  // after a save still knows, on the next run, the rows of files deleted or not yet re-read.
  const notYetSynced = previous ?? new Map(indexed.map((path) => [path, UNKNOWN_ENTRY]));

  const { files, problems } = early ?? (await listFiles(deps, options.only));
  for (const p of problems) report.errors.push({ path: p.path, line: 0, message: p.message });
  // Known before any file is read: a no-op never pays for the index's client, an edit has it loaded meanwhile. The
  // parser and the vector cache's store load now too, before the progress starts: their modules and buffers (~9 + 16
  // MB, live) are then not growth that the CLI's heap watch takes for garbage and collects in the loop, at 50-150 ms a
  // collection at 50,000 files.
  if (previous && !options.rebuild && differs(files, previous, options.only)) {
    prepare?.();
    await Promise.all([fileRecords(), deps.cache.preload?.()]);
  }
  report.files = files.length;
  progress.start(files.length, 'indexing');

  let lastSave = Date.now();
  let lastSaveMs = 0;
  const saveInterval = deps.manifestSaveIntervalMs ?? MANIFEST_SAVE_INTERVAL_MS;
  let batch = emptyBatch();
  // Scanned files that have an entry, counted by the loop's own look-ups: removeDeleted needs no pass of its own.
  let known = 0;
  // Files removed while this sync ran: their rows go too, though the scan listed them.
  const vanished = new Set<string>();
  let writtenSinceSave = 0;
  const saveDue = () =>
    progressSaveDue({ elapsedMs: Date.now() - lastSave, intervalMs: saveInterval, lastSaveMs, written: writtenSinceSave, entries: next.size });
  const write = async (full: Batch) => {
    await writeBatch(deps, full, notYetSynced, previous, report, ahead);
    for (const f of full.files) next.set(f.stat.path, f.entry);
    writtenSinceSave += full.files.length;
    progress.tick(full.files.length);
    if (saveDue()) {
      const started = Date.now();
      await deps.manifest.save(progressOf(notYetSynced, next));
      lastSave = Date.now();
      lastSaveMs = lastSave - started;
      writtenSinceSave = 0;
    }
  };
  // One batch is written while the next is read and parsed: the index server works while this process does.
  // Only one at a time, so entries and saves follow the order of the writes.
  let inFlight: Promise<void> = Promise.resolve();
  const writePending = async () => {
    await lookUpVectors(deps, batch);
    const full = batch;
    batch = emptyBatch();
    await inFlight;
    inFlight = write(full);
    // Its failure surfaces where it is awaited (the next batch, or the end of the scan), not as an unhandled rejection.
    inFlight.catch(() => undefined);
  };
  const batchRows = deps.writeBatchRows ?? WRITE_BATCH_ROWS;

  try {
    for (const stat of files) {
      const prev = previous?.get(stat.path);
      if (prev) known++;
      if (prev && unchangedByStat(prev, stat)) {
        next.set(stat.path, prev);
        report.skipped++;
        progress.tick();
        continue;
      }
      const parsed = stat.size > deps.maxFileBytes ? tooLarge(stat, deps.maxFileBytes, report) : await readAndParse(deps, stat, prev, report);
      if (parsed === 'gone' || parsed === 'misplaced') vanished.add(stat.path);
      if (parsed === 'unchanged' || parsed === 'gone' || parsed === 'misplaced' || parsed === 'invalid') {
        // An invalid file keeps its last good rows (nothing is lost); it is retried on the next run.
        if (parsed !== 'gone' && parsed !== 'misplaced' && prev)
          next.set(stat.path, parsed === 'unchanged' ? { ...prev, size: stat.size, mtimeMs: stat.mtimeMs } : prev);
        if (parsed === 'unchanged') report.skipped++;
        progress.tick();
        continue;
      }
      // A batch never passes batchRows by a file: the index takes at most that many rows a request, so the few rows
      // over it made a second insert request of their own per batch.
      if (batch.files.length > 0 && batch.rows + parsed.records.length > batchRows) await writePending();
      await addToBatch(deps, batch, parsed);
      if (batch.rows >= batchRows || batch.missing.size >= RECORDS_PER_BATCH) await writePending();
    }
    if (batch.files.length > 0) await writePending();
  } finally {
    // A batch in flight ends before anything else happens, even on an error here: no write outlives the lock.
    await inFlight.catch(() => undefined);
  }
  await inFlight;
  progress.stop();

  // Files that vanished during the loop are not present: they leave the count of known files too.
  for (const path of vanished) if (previous?.has(path)) known--;
  const present = { files: vanished.size === 0 ? files : files.filter((f) => !vanished.has(f.path)), known };
  await removeDeleted(deps, present, previous, indexed, next, options.only, report);
  await applyLinks(deps, next, previous, options.only, report);
  const wrote = report.upserted > 0 || report.deleted > 0 || options.rebuild;
  // A big write's flush ends before the manifest's save, as always; a small write's runs meanwhile (see boundedFlush).
  const small = !options.rebuild && report.upserted + report.deleted <= SMALL_WRITE_ROWS;
  const flushing = wrote && small ? boundedFlush(deps.index) : undefined;
  if (wrote && !small) await deps.index.flush();
  // A delete only marks rows: their text stays in index storage until a purge rewrites it (services/purge.ts).
  if (report.deleted > 0 && !options.rebuild) await deps.residue.markDeleted();
  // A no-op sync leaves the manifest as it was: rewriting megabytes to say the same costs a no-op its time.
  const same = previous && !options.rebuild && next.size === previous.size && everyEntry(next, (path, e) => previous.get(path) === e);
  if (!same || deps.manifest.needsRewrite()) await deps.manifest.save(next);
  for (const entry of next.values()) report.chunks += entry.chunkCount;
  // Two files of one user with one id both stay indexed; each is reported where its id is (a partial sync: its own).
  const duplicates = await duplicateIdErrors(deps, next);
  report.errors.push(...(options.only ? duplicates.filter((e) => options.only!.includes(e.path)) : duplicates));
  await flushing;
  return report;
}

/**
 * The scan of a full sync, made before the manifest is read; a file modified after the manifest's last save means a
 * write is coming (a hint only: a file changed otherwise, or deleted, is found by `differs` once the manifest is read).
 * The manifest's load is then what the index's client loads behind.
 */
async function scanFirst(
  deps: SyncDeps,
  prepare: (() => void) | undefined,
): Promise<{ scanned: Awaited<ReturnType<MemoryFiles['scan']>>; changed: FileStat[] }> {
  const savedAt = (await deps.manifest.savedAt?.()) ?? null;
  const scanned = await deps.files.scan();
  // A file dated in the future (a copy from a skewed clock) would make every no-op load the client: not a hint.
  const now = Date.now();
  const changed = savedAt === null ? [] : scanned.files.filter((f) => f.mtimeMs > savedAt && f.mtimeMs <= now);
  if (changed.length > 0) prepare?.();
  return { scanned, changed };
}

async function listFiles(deps: SyncDeps, only?: string[]) {
  if (!only) return deps.files.scan();
  const files: FileStat[] = [];
  for (const path of only) {
    const stat = await deps.files.stat(path);
    if (stat) files.push(stat);
  }
  return { files, problems: [] };
}

function tooLarge(stat: FileStat, limit: number, report: ReindexReport): 'invalid' {
  report.errors.push(tooLargeError(stat, limit));
  return 'invalid';
}

async function readAndParse(
  deps: SyncDeps,
  stat: FileStat,
  prev: ManifestEntry | undefined,
  report: ReindexReport,
): Promise<ParsedFile | 'unchanged' | 'gone' | 'invalid' | 'misplaced'> {
  let bytes: Uint8Array;
  try {
    bytes = await deps.files.read(stat.path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'gone'; // removed while we ran
    report.errors.push({ path: stat.path, line: 0, message: errorMessage(err) });
    return 'invalid';
  }
  const sha = sha256(bytes);
  if (prev && prev.sha === sha) return 'unchanged';
  const { recordsOf, entryOf } = await fileRecords();
  const parsed = recordsOf(deps, stat, bytes);
  if ('message' in parsed) {
    const { misplaced, ...error } = parsed;
    report.errors.push(error);
    // A file in the wrong scope keeps no rows (it must not speak for a user); other invalid files keep their last good ones.
    return misplaced ? 'misplaced' : 'invalid';
  }
  const { meta, records } = parsed;
  return { stat, sha, records, entry: entryOf(stat, sha, meta, records) };
}

/**
 * Gives every memory the status its links say (see links.ts): the rows of a memory whose effective
 * status changed are upserted again from the file with cached vectors (nothing is re-embedded).
 * Link errors of the synced paths (all, on a full sync) are reported by path and line.
 */
async function applyLinks(
  deps: SyncDeps,
  next: Map<string, ManifestEntry>,
  previous: Map<string, ManifestEntry> | null,
  only: string[] | undefined,
  report: ReindexReport,
): Promise<void> {
  // Only the paths whose status changes: no status of every path is made (50,000 at scale).
  const { restatus: statuses, problems } = linkChanges(next);
  const changed = [...statuses.keys()];
  if (changed.length > 0) {
    // Until the rows are rewritten, the manifest must not vouch for them: killed in between, the
    // next sync re-reads these files (whatever the links say by then) instead of trusting a status.
    const unsure = new Map(next);
    for (const path of changed) unsure.set(path, { ...next.get(path)!, size: -1, mtimeMs: -1, sha: UNSURE_SHA });
    await deps.manifest.save(unsure);
    for (let i = 0; i < changed.length; i += RECORDS_PER_BATCH) await restatus(deps, changed.slice(i, i + RECORDS_PER_BATCH), next, statuses, report);
  }
  const synced = only ? new Set(only) : null;
  const syncedIds = new Set(only?.flatMap((p) => [previous?.get(p)?.memoryId, next.get(p)?.memoryId]).filter((id) => id !== undefined));
  const relevant = problems.filter(
    (p) => (p.key === 'supersedes' || p.key === 'sources') && (!synced || synced.has(p.path) || (p.target !== undefined && syncedIds.has(p.target))),
  );
  for (const problem of relevant) report.errors.push(await linkError(deps, problem));
}

/** Rewrites the rows of these files with their effective status; a file changed since it was read waits for the next sync. */
async function restatus(
  deps: SyncDeps,
  paths: string[],
  next: Map<string, ManifestEntry>,
  statuses: Map<string, MemoryStatus>,
  report: ReindexReport,
): Promise<void> {
  const rows: ChunkRecord[] = [];
  const done: string[] = [];
  const { recordsOf } = await fileRecords();
  for (const path of paths) {
    const entry = next.get(path)!;
    const stat = await deps.files.stat(path);
    const bytes = stat ? await deps.files.read(path).catch(() => null) : null;
    if (!stat || !bytes || sha256(bytes) !== entry.sha) {
      next.set(path, { ...entry, size: -1, mtimeMs: -1, sha: UNSURE_SHA });
      continue;
    }
    const parsed = recordsOf(deps, stat, bytes);
    if ('message' in parsed) {
      next.set(path, { ...entry, size: -1, mtimeMs: -1, sha: UNSURE_SHA });
      continue;
    }
    rows.push(...parsed.records.map((r) => ({ ...r, status: statuses.get(path)! })));
    done.push(path);
  }
  const vectors = await vectorsFor(deps, rows, report);
  if (rows.length > 0) {
    await deps.index.upsert(rows.map((r) => ({ ...r, vector: vectors.get(r.textHash)! })));
    report.upserted += rows.length;
  }
  for (const path of done) next.set(path, withStatus(next.get(path)!, statuses.get(path)!));
}

/** A link problem as a sync error: the file, the line of the key, and what to do. */
async function linkError(deps: SyncDeps, problem: LinkProblem): Promise<FileError> {
  let line = 1;
  try {
    const { frontMatterLine, decodeMemoryText } = await fileRecords();
    line = frontMatterLine(decodeMemoryText(await deps.files.read(problem.path), problem.path), problem.key);
  } catch {
    // The file went or turned invalid since: its own error says so; the link is still reported.
  }
  return { path: problem.path, line, message: problem.message };
}

/** Parsed files waiting to be written, with the cached vectors of their texts and the texts still to embed. */
interface Batch {
  files: ParsedFile[];
  rows: number;
  vectors: Map<string, number[]>;
  missing: Set<string>;
  /** Texts not looked up in the cache yet: looked up together, a few dozen at a time. */
  unlooked: Set<string>;
}

function emptyBatch(): Batch {
  return { files: [], rows: 0, vectors: new Map(), missing: new Set(), unlooked: new Set() };
}

/** Adds a file; its texts are looked up in the cache in groups, so the batch knows how much it must embed. */
async function addToBatch(deps: SyncDeps, batch: Batch, file: ParsedFile): Promise<void> {
  batch.files.push(file);
  batch.rows += file.records.length;
  for (const r of file.records) if (!batch.vectors.has(r.textHash) && !batch.missing.has(r.textHash)) batch.unlooked.add(r.textHash);
  if (batch.unlooked.size >= RECORDS_PER_BATCH) await lookUpVectors(deps, batch);
}

async function lookUpVectors(deps: SyncDeps, batch: Batch): Promise<void> {
  const lookup = [...batch.unlooked];
  batch.unlooked.clear();
  if (lookup.length === 0) return;
  const found = await deps.cache.getMany(lookup);
  for (const h of lookup) {
    const vector = found.get(h);
    if (vector) batch.vectors.set(h, vector);
    else batch.missing.add(h);
  }
}

/**
 * Embeds what the cache lacks and writes the batch's rows as batchWrites plans them. Deletes come after the writes: a
 * failure between them leaves the old rows searchable.
 */
async function writeBatch(
  deps: SyncDeps,
  batch: Batch,
  before: Map<string, ManifestEntry>,
  previous: Map<string, ManifestEntry> | null,
  report: ReindexReport,
  ahead?: Promise<AheadVectors>,
): Promise<void> {
  const records = batch.files.flatMap((f) => f.records);
  // The index's first use loads the Milvus client (a second or more of this process's CPU, blocking it) and opens
  // the collection: done while the embedder works on the batch's new texts, not after it. The request gets a head
  // start: loading the client first would hold it back until the load is over.
  const embedding = vectorsFor(deps, records, report, batch.vectors, ahead);
  const opening = headStart(embedding).then(() => deps.index.open(deps.embedder.identity));
  // Both end before anything else happens (no call outlives the lock); the first failure is the one reported.
  const [embedded, opened] = await Promise.allSettled([embedding, opening]);
  if (embedded.status === 'rejected') throw embedded.reason;
  if (opened.status === 'rejected') throw opened.reason;
  const vectors = embedded.value;
  await deps.manifest.markPending(batch.files.map((f) => f.stat.path));
  // The old chunk lists of the files rewritten, and of them only (none on a first index or a rebuild).
  const olds = batch.files.flatMap((f): [string, ManifestEntry][] => {
    const old = before.get(f.stat.path);
    return old ? [[f.stat.path, old]] : [];
  });
  const oldChunks = olds.length > 0 ? await deps.manifest.chunksOf(olds) : new Map<string, { id: string }[]>();
  const { inserts, upserts, staleIds, unknownPaths, unknownKeep, deleted } = batchWrites(batch.files, before, previous, oldChunks);
  report.deleted += deleted;
  const withVectors = (rows: ChunkRecord[]) => rows.map((r) => ({ ...r, vector: vectors.get(r.textHash)! }));
  if (inserts.length > 0) await deps.index.insert(withVectors(inserts));
  if (upserts.length > 0) await deps.index.upsert(withVectors(upserts));
  report.upserted += records.length;
  if (staleIds.length > 0) await deps.index.deleteChunks(staleIds);
  // One request for these files: chunk ids embed their path, so "these paths, not these ids" is exact.
  if (unknownPaths.length > 0) await deps.index.deleteStale(unknownPaths, unknownKeep);
  // Still pending until the save that gives these files their entries: a list is never trusted before its entry.
  await deps.manifest.putChunks(
    batch.files.map((f) => ({ path: f.stat.path, sha: f.sha, chunks: f.records.map((r) => ({ id: r.chunkId, textHash: r.textHash })) })),
  );
}

async function vectorsFor(
  deps: SyncDeps,
  records: ChunkRecord[],
  report: ReindexReport,
  vectors = new Map<string, number[]>(),
  ahead?: Promise<AheadVectors>,
): Promise<Map<string, number[]>> {
  const texts = new Map(records.map((r) => [r.textHash, r.content]));
  const lookup = [...texts.keys()].filter((h) => !vectors.has(h));
  if (lookup.length > 0) for (const [h, v] of await deps.cache.getMany(lookup)) vectors.set(h, v);
  let missing = [...texts.keys()].filter((h) => !vectors.has(h));
  if (ahead && missing.length > 0) missing = await takeAhead(deps, await ahead, missing, vectors, report);
  for (let i = 0; i < missing.length; i += deps.embedBatchSize) {
    const hashes = missing.slice(i, i + deps.embedBatchSize);
    const embedded = await deps.embedder.embedDocuments(hashes.map((h) => texts.get(h)!));
    const fresh = new Map(hashes.map((h, j) => [h, embedded[j]!]));
    await deps.cache.putMany(fresh);
    for (const [h, v] of fresh) vectors.set(h, v);
    report.embedded += hashes.length;
  }
  return vectors;
}

/**
 * Takes the vectors embedded ahead (embed-ahead.ts) for these missing texts, caches them and counts them as embedded by
 * this sync; returns the texts still to embed. The ahead request's failure, for texts it was sent, is this sync's.
 */
async function takeAhead(deps: SyncDeps, ahead: AheadVectors, missing: string[], vectors: Map<string, number[]>, report: ReindexReport): Promise<string[]> {
  if (ahead.error !== undefined && missing.some((h) => ahead.attempted.has(h))) throw ahead.error;
  const fresh = new Map<string, number[]>();
  for (const h of missing) {
    const vector = ahead.vectors.get(h);
    if (vector) fresh.set(h, vector);
  }
  if (fresh.size === 0) return missing;
  await deps.cache.putMany(fresh);
  for (const [h, v] of fresh) vectors.set(h, v);
  report.embedded += fresh.size;
  return missing.filter((h) => !fresh.has(h));
}

/** Removes the rows of files that are gone (gonePaths); without a manifest, of the paths the index held. */
async function removeDeleted(
  deps: SyncDeps,
  present: { files: FileStat[]; known: number },
  previous: Map<string, ManifestEntry> | null,
  indexed: string[],
  next: Map<string, ManifestEntry>,
  only: string[] | undefined,
  report: ReindexReport,
): Promise<void> {
  const gone = gonePaths(present, previous, indexed, only);
  for (let i = 0; i < gone.length; i += 100) {
    const paths = gone.slice(i, i + 100);
    await deps.index.delete({ users: 'all', paths });
  }
  for (const path of gone) {
    report.deleted += previous?.get(path)?.chunkCount ?? 0;
    next.delete(path);
  }
}
