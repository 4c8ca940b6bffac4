// Derives the index records of a parsed memory: one per chunk, with the memory's lifecycle fields.
import { chunkMarkdown, embedTextOf, type ChunkOptions } from './chunk.js';
import { chunkId, textHash } from './hash.js';
import type { MemoryDoc, MemoryStatus, MemoryType } from './model.js';

/** Stored for memories that never expire, so "not expired" is one comparison in a filter. */
export const NO_EXPIRY = 253402300799000; // 9999-12-31T23:59:59Z

export interface ChunkRecord {
  chunkId: string;
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
  return chunkMarkdown(doc.body, doc.bodyStartLine, options).map((chunk) => {
    const content = embedTextOf(chunk);
    const occurrence = seen.get(content) ?? 0;
    seen.set(content, occurrence + 1);
    return {
      chunkId: chunkId(doc.path, content, occurrence),
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
