// Incremental sync of the memory files into the index: scan, parse, chunk, diff against the manifest,
// embed only new texts, upsert, then delete what is stale. Safe to kill at any point: the next run converges.
import { InvalidMemoryError, errorMessage } from '../../errors.js';
import type { ChunkOptions } from '../../memory/chunk.js';
import { decodeMemoryText } from '../../memory/decode.js';
import { sha256 } from '../../memory/hash.js';
import { parseMemory } from '../../memory/parse.js';
import type { MemoryMeta } from '../../memory/model.js';
import { toChunkRecords, type ChunkRecord } from '../../memory/records.js';
import type {
  Embedder, FileStat, ManifestEntry, ManifestStore, MemoryFiles, Progress, VectorCache, VectorIndex, WriteLock,
} from '../ports.js';
import { silentProgress } from '../ports.js';

export interface SyncDeps {
  files: MemoryFiles;
  index: VectorIndex;
  embedder: Embedder;
  cache: VectorCache;
  manifest: ManifestStore;
  lock: WriteLock;
  chunking: ChunkOptions;
  defaultUser: string;
  embedBatchSize: number;
  /** Larger files are reported and skipped (a 20 MB log is not a memory). */
  maxFileBytes: number;
  /** How often a long sync saves its progress (default 5 s; tests use 0: after every batch). */
  manifestSaveIntervalMs?: number;
}

export interface FileError {
  path: string;
  line: number;
  message: string;
}

export interface ReindexReport {
  files: number;
  chunks: number;
  embedded: number;
  upserted: number;
  deleted: number;
  skipped: number;
  errors: FileError[];
}

export interface SyncOptions {
  /** Drop the index and rebuild it from the files (cached vectors are reused). */
  rebuild?: boolean;
  /** Sync only these paths (others keep their manifest entries); a missing path is a deletion. */
  only?: string[];
  progress?: Progress;
}

interface ParsedFile {
  stat: FileStat;
  sha: string;
  records: ChunkRecord[];
  entry: ManifestEntry;
}

// Bounds memory and request sizes, and sets how often progress moves: embedding 64 chunks takes
// about 10 s with the local model on 2 cores.
const RECORDS_PER_BATCH = 64;
const MANIFEST_SAVE_INTERVAL_MS = 5_000;

/** A path the index holds but no manifest describes: matches no file, so the file is re-read or its rows removed. */
const UNKNOWN_ENTRY: ManifestEntry = { size: -1, mtimeMs: -1, sha: '', memoryId: '', user: '', type: 'semantic', status: 'active', chunks: [] };

/** Runs under the write lock; the lock is re-entrant, so a use case that already holds it (add, forget) calls this too. */
export async function syncIndex(deps: SyncDeps, options: SyncOptions = {}): Promise<ReindexReport> {
  return deps.lock.run(() => syncUnderLock(deps, options));
}

async function syncUnderLock(deps: SyncDeps, options: SyncOptions): Promise<ReindexReport> {
  const progress = options.progress ?? silentProgress;
  if (options.rebuild) {
    // Manifest first: killed between the two, the next sync must not trust it for an index that is gone.
    await deps.manifest.clear();
    await deps.index.drop();
  }
  await deps.index.open(deps.embedder.identity);
  const previous = options.rebuild ? null : await deps.manifest.load();
  // Without a manifest a partial sync cannot know what else is indexed: do a full one.
  if (!previous) options = { ...options, only: undefined };
  // Without a manifest the index itself says which paths it holds (rows of files gone since are removed).
  const indexed = !previous && !options.rebuild ? await deps.index.listPaths() : [];
  const next = new Map<string, ManifestEntry>(options.only && previous ? previous : []);
  // What the index holds for files not processed yet: saved with the progress, so a sync killed
  // after a save still knows, on the next run, the rows of files deleted or not yet re-read.
  const notYetSynced = previous ?? new Map(indexed.map((path) => [path, UNKNOWN_ENTRY]));
  const report: ReindexReport = { files: 0, chunks: 0, embedded: 0, upserted: 0, deleted: 0, skipped: 0, errors: [] };

  const { files, problems } = await listFiles(deps, options.only);
  for (const p of problems) report.errors.push({ path: p.path, line: 0, message: p.message });
  report.files = files.length;
  progress.start(files.length, 'indexing');

  let lastSave = Date.now();
  let batch: ParsedFile[] = [];
  let batchRecords = 0;
  // Files removed while this sync ran: their rows go too, though the scan listed them.
  const vanished = new Set<string>();
  const writePending = async () => {
    await writeBatch(deps, batch, previous, report);
    for (const f of batch) next.set(f.stat.path, f.entry);
    progress.tick(batch.length);
    batch = [];
    batchRecords = 0;
    if (Date.now() - lastSave >= (deps.manifestSaveIntervalMs ?? MANIFEST_SAVE_INTERVAL_MS)) {
      await deps.manifest.save(new Map([...notYetSynced, ...next]));
      lastSave = Date.now();
    }
  };

  for (const stat of files) {
    const prev = previous?.get(stat.path);
    if (prev && prev.size === stat.size && prev.mtimeMs === stat.mtimeMs) {
      next.set(stat.path, prev);
      report.skipped++;
      progress.tick();
      continue;
    }
    const parsed = stat.size > deps.maxFileBytes ? tooLarge(stat, deps.maxFileBytes, report) : await readAndParse(deps, stat, prev, report);
    if (parsed === 'gone') vanished.add(stat.path);
    if (parsed === 'unchanged' || parsed === 'gone' || parsed === 'invalid') {
      // An invalid file keeps its last good rows (nothing is lost); it is retried on the next run.
      if (parsed !== 'gone' && prev) next.set(stat.path, parsed === 'unchanged' ? { ...prev, size: stat.size, mtimeMs: stat.mtimeMs } : prev);
      if (parsed === 'unchanged') report.skipped++;
      progress.tick();
      continue;
    }
    batch.push(parsed);
    batchRecords += parsed.records.length;
    if (batchRecords >= RECORDS_PER_BATCH) await writePending();
  }
  if (batch.length > 0) await writePending();
  progress.stop();

  await removeDeleted(deps, files.filter((f) => !vanished.has(f.path)), previous, indexed, next, options.only, report);
  if (report.upserted > 0 || report.deleted > 0 || options.rebuild) await deps.index.flush();
  await deps.manifest.save(next);
  for (const entry of next.values()) report.chunks += entry.chunks.length;
  return report;
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

/** Why a file over the size limit is not indexed. */
export function tooLargeError(stat: FileStat, limit: number): FileError {
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  return { path: stat.path, line: 1, message: `file is ${mb(stat.size)}, over the ${mb(limit)} limit: skipped` };
}

/** The index records of a file's bytes, or the error (path and line) that keeps it out of the index. */
export function recordsOf(
  deps: Pick<SyncDeps, 'defaultUser' | 'chunking'>, stat: FileStat, bytes: Uint8Array,
): { meta: MemoryMeta; records: ChunkRecord[] } | FileError {
  try {
    const text = decodeMemoryText(bytes, stat.path);
    const doc = parseMemory(text, { path: stat.path, defaultUser: deps.defaultUser, fallbackTime: new Date(stat.mtimeMs).toISOString() });
    return { meta: doc.meta, records: toChunkRecords(doc, deps.chunking) };
  } catch (err) {
    if (err instanceof InvalidMemoryError) return { path: err.path, line: err.line, message: err.reason };
    throw err;
  }
}

async function readAndParse(
  deps: SyncDeps, stat: FileStat, prev: ManifestEntry | undefined, report: ReindexReport,
): Promise<ParsedFile | 'unchanged' | 'gone' | 'invalid'> {
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
  const parsed = recordsOf(deps, stat, bytes);
  if ('message' in parsed) {
    report.errors.push(parsed);
    return 'invalid';
  }
  const { meta, records } = parsed;
  const entry: ManifestEntry = {
    size: stat.size, mtimeMs: stat.mtimeMs, sha,
    memoryId: meta.id, user: meta.user, type: meta.type, status: meta.status,
    chunks: records.map((r) => ({ id: r.chunkId, textHash: r.textHash })),
  };
  if (meta.expires) entry.expires = Date.parse(meta.expires);
  if (meta.key) entry.key = meta.key;
  if (meta.source) entry.source = meta.source;
  if (meta.supersedes) entry.supersedes = meta.supersedes;
  if (meta.sources?.length) entry.sources = meta.sources;
  return { stat, sha, records, entry };
}

/** Embeds what the cache lacks, upserts all rows of the batch's files, then deletes their stale rows. */
async function writeBatch(
  deps: SyncDeps, batch: ParsedFile[], previous: Map<string, ManifestEntry> | null, report: ReindexReport,
): Promise<void> {
  const records = batch.flatMap((f) => f.records);
  const vectors = await vectorsFor(deps, records, report);
  if (records.length > 0) {
    await deps.index.upsert(records.map((r) => ({ ...r, vector: vectors.get(r.textHash)! })));
    report.upserted += records.length;
  }
  // Only after the new rows are in: a failure above leaves the old rows searchable.
  // One request for the whole batch: chunk ids embed their path, so "these paths, not these ids" is exact.
  await deps.index.deleteStale(batch.map((f) => f.stat.path), records.map((r) => r.chunkId));
  for (const file of batch) {
    const keep = new Set(file.records.map((r) => r.chunkId));
    const prev = previous?.get(file.stat.path);
    if (prev) report.deleted += prev.chunks.filter((c) => !keep.has(c.id)).length;
  }
}

async function vectorsFor(deps: SyncDeps, records: ChunkRecord[], report: ReindexReport): Promise<Map<string, number[]>> {
  const texts = new Map(records.map((r) => [r.textHash, r.content]));
  const vectors = await deps.cache.getMany([...texts.keys()]);
  const missing = [...texts.keys()].filter((h) => !vectors.has(h));
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

/** Removes the rows of files that are gone; without a manifest, of the paths the index held. */
async function removeDeleted(
  deps: SyncDeps, files: FileStat[], previous: Map<string, ManifestEntry> | null, indexed: string[],
  next: Map<string, ManifestEntry>, only: string[] | undefined, report: ReindexReport,
): Promise<void> {
  const present = new Set(files.map((f) => f.path));
  const candidates = only ?? (previous ? [...previous.keys()] : indexed);
  const gone = [...new Set(candidates)].filter((p) => !present.has(p));
  for (let i = 0; i < gone.length; i += 100) {
    const paths = gone.slice(i, i + 100);
    await deps.index.delete({ users: 'all', paths });
  }
  for (const path of gone) {
    report.deleted += previous?.get(path)?.chunks.length ?? 0;
    next.delete(path);
  }
}
