// The units of a result's file, read back from the file itself rather than queried from the index: the
// expansion (units inside the best windows) and the excerpt (a result's neighbouring units) need a handful
// of files, which are on local disk, while each index query is a round trip that scans the whole collection.
// A file answers only while it still holds the row as the index has it (the row's chunk id is among the
// file's own): then its units are the rows the index holds, with the file-level fields the index carries.
import type { ChunkRecord } from '../../memory/records.js';
import { recordsOf } from '../core/file-records.js';
import type { SyncDeps } from '../core/sync.js';
import type { IndexHit } from '../ports.js';

type Row = IndexHit['record'];

/** The file's units (in line order) as index rows, or null when the file no longer holds `row` as indexed. */
export type FileUnits = (row: Row) => Promise<Row[] | null>;

/** Parsed files kept between searches of one open memory (a daemon's), each checked by size and mtime before use. */
const CACHED_FILES = 512;
interface Parsed {
  /** Every row id of the file (units and windows), to check that it still holds a row as indexed. */
  ids: Set<string>;
  /** Its units, in line order. */
  units: ChunkRecord[];
}
const caches = new WeakMap<object, Map<string, { size: number; mtimeMs: number; parsed: Parsed | null }>>();

/**
 * A reader for one search: each file is read at most once, and parsed at most once while it stays the same
 * (parsing and chunking a 7.5 KB conversation log took 42-73 ms on a loaded machine: a daemon keeps the latest files parsed).
 */
export function fileUnitsReader(deps: Pick<SyncDeps, 'files' | 'chunking' | 'defaultUser' | 'maxFileBytes'>): FileUnits {
  let cache = caches.get(deps.files);
  if (!cache) caches.set(deps.files, (cache = new Map()));
  const files = new Map<string, Promise<Parsed | null>>();
  const load = async (path: string): Promise<Parsed | null> => {
    try {
      const stat = await deps.files.stat(path);
      if (!stat || stat.size > deps.maxFileBytes) {
        cache.delete(path); // a forgotten file's text is not kept here either
        return null;
      }
      const known = cache.get(path);
      if (known && known.size === stat.size && known.mtimeMs === stat.mtimeMs) {
        cache.delete(path); // most recently used last
        cache.set(path, known);
        return known.parsed;
      }
      const read = recordsOf(deps, stat, await deps.files.read(path));
      const parsed =
        'records' in read
          ? { ids: new Set(read.records.map((r) => r.chunkId)), units: read.records.filter((r) => r.kind === 'unit').sort((a, b) => a.lineStart - b.lineStart) }
          : null;
      cache.set(path, { size: stat.size, mtimeMs: stat.mtimeMs, parsed });
      if (cache.size > CACHED_FILES) cache.delete(cache.keys().next().value!);
      return parsed;
    } catch {
      return null; // gone, unreadable or not a memory any more: the index answers instead
    }
  };
  return async (row) => {
    let pending = files.get(row.path);
    if (!pending) files.set(row.path, (pending = load(row.path)));
    const file = await pending;
    if (!file?.ids.has(row.chunkId)) return null;
    // The index's own file-level fields (its status may be a link's, its `updated` capped at the sync): from the row.
    return file.units.map((r) => ({
      ...row,
      chunkId: r.chunkId,
      kind: 'unit',
      heading: r.heading,
      lineStart: r.lineStart,
      lineEnd: r.lineEnd,
      content: r.content,
    }));
  };
}
