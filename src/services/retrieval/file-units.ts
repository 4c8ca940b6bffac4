// The units of a result's file, read back from the file itself rather than queried from the index: the
// expansion (units inside the best windows) and the excerpt (a result's neighbouring units) need a handful
// of files, which are on local disk, while each index query is a round trip that scans the whole collection.
// A file answers only while it still holds the row as the index has it (the row's chunk id is among the
// file's own): then its units are the rows the index holds, with the file-level fields the index carries.
import type { ChunkRecord } from '../../memory/records.js';
import { recordsOf, type SyncDeps } from '../core/sync.js';
import type { IndexHit } from '../ports.js';

type Row = IndexHit['record'];

/** The file's units (in line order) as index rows, or null when the file no longer holds `row` as indexed. */
export type FileUnits = (row: Row) => Promise<Row[] | null>;

/** A reader for one search: each file is read and parsed at most once. */
export function fileUnitsReader(deps: Pick<SyncDeps, 'files' | 'chunking' | 'defaultUser' | 'maxFileBytes'>): FileUnits {
  const parsed = new Map<string, Promise<ChunkRecord[] | null>>();
  const load = async (path: string): Promise<ChunkRecord[] | null> => {
    try {
      const stat = await deps.files.stat(path);
      if (!stat || stat.size > deps.maxFileBytes) return null;
      const read = recordsOf(deps, stat, await deps.files.read(path));
      return 'records' in read ? read.records : null;
    } catch {
      return null; // gone, unreadable or not a memory any more: the index answers instead
    }
  };
  return async (row) => {
    let records = parsed.get(row.path);
    if (!records) parsed.set(row.path, (records = load(row.path)));
    const all = await records;
    if (!all?.some((r) => r.chunkId === row.chunkId)) return null;
    // The index's own file-level fields (its status may be a link's, its `updated` capped at the sync): from the row.
    return all
      .filter((r) => r.kind === 'unit')
      .sort((a, b) => a.lineStart - b.lineStart)
      .map((r) => ({ ...row, chunkId: r.chunkId, kind: 'unit', heading: r.heading, lineStart: r.lineStart, lineEnd: r.lineEnd, content: r.content }));
  };
}
