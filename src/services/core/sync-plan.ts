// What a sync decides, as pure functions: which files to read, when a batch is full, which rows a batch inserts,
// upserts and deletes, which files are gone, when progress is saved. sync.ts executes these decisions (reads, embeds,
// writes, in a pipeline). The plan is made per batch, as the scan streams, not up front: a plan of 50,000 parsed
// files would hold them all in memory at once.
import type { ChunkRecord } from '../../memory/records.js';
import type { FileStat, ManifestEntry } from '../ports.js';
import type { FileError } from './file-records.js';

/** A file read and parsed by this sync: its rows, and the manifest entry they make. */
export interface ParsedFile {
  stat: FileStat;
  sha: string;
  records: ChunkRecord[];
  entry: ManifestEntry;
}

// A batch closes at 64 texts to embed (about 10 s with the local model on 2 cores: how often progress
// moves) or at 500 rows (vectors from the cache: one insert request of the size Milvus takes well).
export const RECORDS_PER_BATCH = 64;
export const WRITE_BATCH_ROWS = 500;
export const MANIFEST_SAVE_INTERVAL_MS = 5_000;
// A save appends the entries written since the last one, but now and then rewrites the whole manifest (see
// JsonManifest): at most about a tenth of a long sync's time goes to saving progress.
const SAVE_TIME_SHARE = 10;
// A progress save costs O(entries) (the manifest compares every entry with what it saved), so one every 5 s made a full
// index O(n²): it also waits until the sync has written a twentieth as many files as there are entries, or 30 s have
// passed, so saves cost O(n) in total and a kill loses at most that much work.
const SAVE_GROWTH_DIVISOR = 20;
const MAX_SAVE_INTERVAL_MS = 30_000;

/** The hash of an entry that vouches for nothing: its file is re-read by the next sync, even a partial one. */
export const UNSURE_SHA = '';

/** A path the index holds but no manifest describes: matches no file, so the file is re-read or its rows removed. */
export const UNKNOWN_ENTRY: ManifestEntry = {
  size: -1,
  mtimeMs: -1,
  sha: UNSURE_SHA,
  memoryId: '',
  user: '',
  type: 'semantic',
  status: 'active',
  chunkCount: 0,
  unknownRows: true,
};

/** A file whose size and modification time are those of its entry is not read again. */
export function unchangedByStat(prev: ManifestEntry | undefined, stat: FileStat): boolean {
  return prev !== undefined && prev.size === stat.size && prev.mtimeMs === stat.mtimeMs;
}

/**
 * Whether a sync of these files will likely write: a file without an entry or whose size or mtime differs, or an
 * entry without its file (a full sync: the scan found fewer paths than the manifest has). A touched file whose bytes
 * are the same also counts (its hash is known only once it is read): the index is then loaded for nothing.
 */
export function differs(files: FileStat[], previous: Map<string, ManifestEntry>, only: string[] | undefined): boolean {
  for (const stat of files) if (!unchangedByStat(previous.get(stat.path), stat)) return true;
  return only ? files.length < only.length : files.length !== previous.size;
}

/**
 * Whether a long sync saves its progress now: `intervalMs` after the last save (0: after every batch), SAVE_TIME_SHARE
 * times as long as that save took, and once it has written a SAVE_GROWTH_DIVISOR-th as many files as there are
 * entries or MAX_SAVE_INTERVAL_MS have passed.
 */
export function progressSaveDue(s: { elapsedMs: number; intervalMs: number; lastSaveMs: number; written: number; entries: number }): boolean {
  if (s.intervalMs === 0) return true;
  if (s.elapsedMs < Math.max(s.intervalMs, SAVE_TIME_SHARE * s.lastSaveMs)) return false;
  return s.written * SAVE_GROWTH_DIVISOR >= s.entries || s.elapsedMs >= Math.max(s.intervalMs, MAX_SAVE_INTERVAL_MS);
}

/**
 * What a progress save holds: the entries of files not synced yet, overridden by those synced (no arrays of all pairs).
 * A first full index has none of the first: the synced entries are saved as they are, not copied at every save.
 */
export function progressOf(notYetSynced: Map<string, ManifestEntry>, next: Map<string, ManifestEntry>): Map<string, ManifestEntry> {
  if (notYetSynced.size === 0) return next;
  const all = new Map(notYetSynced);
  for (const [path, entry] of next) all.set(path, entry);
  return all;
}

/** Whether every entry passes; iterates the map itself (no array of 50,000 pairs made first). */
export function everyEntry(entries: Map<string, ManifestEntry>, test: (path: string, e: ManifestEntry) => boolean): boolean {
  for (const [path, e] of entries) if (!test(path, e)) return false;
  return true;
}

/** Why a file over the size limit is not indexed. */
export function tooLargeError(stat: FileStat, limit: number): FileError {
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  // Just over the limit both round alike ("5.0 MB, over the 5.0 MB limit"): then the bytes say it.
  if (mb(stat.size) !== mb(limit)) return { path: stat.path, line: 1, message: `file is ${mb(stat.size)}, over the ${mb(limit)} limit: skipped` };
  const n = (x: number) => x.toLocaleString('en-US');
  return { path: stat.path, line: 1, message: `file is ${n(stat.size)} bytes, over the ${n(limit)}-byte (${mb(limit)}) limit: skipped` };
}

/** A batch's writes: rows to insert (paths the index holds none of) or upsert, and the stale rows to delete after. */
export interface BatchWrites {
  inserts: ChunkRecord[];
  upserts: ChunkRecord[];
  /** Rows of a known chunk list that the new version no longer has. */
  staleIds: string[];
  /** Paths whose rows no list describes (a killed write): their rows but `unknownKeep` go by path. */
  unknownPaths: string[];
  unknownKeep: string[];
  /** Rows of files the manifest knew that the new version drops (what the report counts as deleted). */
  deleted: number;
}

/**
 * Each file's old rows are found without a scan of the index. A path the index holds no rows of (no entry before this
 * sync, none left by a killed one: see ManifestStore.markPending) gets plain inserts. A known entry's stale rows go by
 * chunk id; an entry whose rows are unknown gets upserts and a delete by path.
 */
export function batchWrites(
  files: ParsedFile[],
  before: Map<string, ManifestEntry>,
  previous: Map<string, ManifestEntry> | null,
  oldChunks: Map<string, { id: string }[]>,
): BatchWrites {
  const writes: BatchWrites = { inserts: [], upserts: [], staleIds: [], unknownPaths: [], unknownKeep: [], deleted: 0 };
  for (const file of files) {
    const old = before.get(file.stat.path);
    const oldList = oldChunks.get(file.stat.path);
    const keep = new Set(file.records.map((r) => r.chunkId));
    if (!old) writes.inserts.push(...file.records);
    else writes.upserts.push(...file.records);
    // Rows no list describes (a killed write, or a list lost with a kill between the store and the manifest) go by path.
    if (old?.unknownRows || (old && !oldList)) {
      writes.unknownPaths.push(file.stat.path);
      writes.unknownKeep.push(...keep);
    } else if (oldList) writes.staleIds.push(...oldList.filter((c) => !keep.has(c.id)).map((c) => c.id));
    if (previous?.has(file.stat.path) && oldList) writes.deleted += oldList.filter((c) => !keep.has(c.id)).length;
  }
  return writes;
}

/**
 * The paths whose rows go because their files are gone: of the synced paths (`only`), else the manifest's, else
 * (no manifest) the paths the index held. A full sync that found a file for every entry (paths are unique: as many
 * known paths as entries) removes nothing, and no set of all 50,000 paths is made for a no-op (~50-80 ms with its
 * garbage); the manifest's paths are looked at in place.
 */
export function gonePaths(
  present: { files: FileStat[]; known: number },
  previous: Map<string, ManifestEntry> | null,
  indexed: string[],
  only: string[] | undefined,
): string[] {
  if (!only && previous && indexed.length === 0 && present.known === previous.size) return [];
  const here = new Set<string>();
  for (const f of present.files) here.add(f.path);
  const candidates: Iterable<string> = only ?? previous?.keys() ?? indexed;
  const gone: string[] = [];
  const seen = new Set<string>();
  for (const p of candidates) {
    if (here.has(p) || seen.has(p)) continue;
    seen.add(p);
    gone.push(p);
  }
  return gone;
}
