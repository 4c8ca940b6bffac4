// Derives the index records of a parsed memory: one per unit and one per context window (memory/units.ts),
// each with the memory's lifecycle fields.
import { embedTextOf, type ChunkOptions } from './chunk.js';
import { chunkId, textHash } from './hash.js';
import { NO_EXPIRY } from './lifecycle.js';
import type { Chunk, MemoryDoc, MemoryStatus, MemoryType } from './model.js';
import { unitsAndWindows } from './units.js';

export { NO_EXPIRY };

/** unit: a row search ranks and returns; window: neighbouring units, only a signal for the units inside it. */
export type RowKind = 'unit' | 'window';

export interface ChunkRecord {
  chunkId: string;
  kind: RowKind;
  /** Cache key of the chunk's vector. */
  textHash: string;
  memoryId: string;
  user: string;
  type: MemoryType;
  status: MemoryStatus;
  importance: number;
  /** Epoch milliseconds. */
  created: number;
  updated: number;
  expires: number;
  path: string;
  heading: string;
  lineStart: number;
  lineEnd: number;
  tags: string[];
  /** The embedded text (chunk with heading context); also what BM25 indexes. */
  content: string;
}

/**
 * `seenAtMs` (when the file was last written, its mtime) caps `updated`: a hand-written date in the
 * future would otherwise earn the full recency boost for as long as it stays in the future.
 */
export function toChunkRecords(doc: MemoryDoc, options: ChunkOptions, seenAtMs?: number): ChunkRecord[] {
  const { meta } = doc;
  const updated = seenAtMs === undefined ? Date.parse(meta.updated) : Math.min(Date.parse(meta.updated), seenAtMs);
  const seen = new Map<string, number>();
  const { units, windows } = unitsAndWindows(doc.body, doc.bodyStartLine, options);
  const rows: [RowKind, Chunk][] = [...units.map((c) => ['unit', c] as [RowKind, Chunk]), ...windows.map((c) => ['window', c] as [RowKind, Chunk])];
  return rows.map(([kind, chunk]) => {
    const content = embedTextOf(chunk);
    // A unit's id is what a chunk's was (path, text, occurrence); a window's is marked, so it never equals a unit's.
    const key = kind === 'unit' ? content : `window\u0000${content}`;
    const occurrence = seen.get(key) ?? 0;
    seen.set(key, occurrence + 1);
    return {
      chunkId: chunkId(doc.path, key, occurrence),
      kind,
      textHash: textHash(content),
      memoryId: meta.id,
      user: meta.user,
      type: meta.type,
      status: meta.status,
      importance: meta.importance,
      created: Date.parse(meta.created),
      updated,
      expires: meta.expires ? Date.parse(meta.expires) : NO_EXPIRY,
      path: doc.path,
      heading: chunk.heading,
      lineStart: chunk.lineStart,
      lineEnd: chunk.lineEnd,
      tags: meta.tags,
      content,
    };
  });
}
