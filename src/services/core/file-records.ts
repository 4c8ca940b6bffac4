// What a memory file's bytes become for the index (its chunk records and manifest entry), or why it cannot be
// indexed: apart from sync.ts so that a sync loads the parser only once it has a file to read.
import { InvalidMemoryError, MisplacedMemoryError } from '../../errors.js';
import type { ChunkOptions } from '../../memory/chunk.js';
import { decodeMemoryText } from '../../memory/decode.js';
import { frontMatterLine, parseMemory } from '../../memory/parse.js';
import type { MemoryMeta } from '../../memory/model.js';
import { toChunkRecords, type ChunkRecord } from '../../memory/records.js';
import type { FileStat, ManifestEntry } from '../ports.js';

export { decodeMemoryText, frontMatterLine };

/** A file that keeps out of the index, where and why (sync's reports carry these). */
export interface FileError {
  path: string;
  line: number;
  message: string;
}

/** The index records of a file's bytes, or the error (path and line) that keeps it out of the index. */
export function recordsOf(
  deps: { defaultUser: string; chunking: ChunkOptions },
  stat: FileStat,
  bytes: Uint8Array,
): { meta: MemoryMeta; records: ChunkRecord[] } | (FileError & { misplaced?: true }) {
  try {
    const text = decodeMemoryText(bytes, stat.path);
    const doc = parseMemory(text, { path: stat.path, defaultUser: deps.defaultUser, fallbackTime: new Date(stat.mtimeMs).toISOString() });
    return { meta: doc.meta, records: toChunkRecords(doc, deps.chunking, stat.mtimeMs) };
  } catch (err) {
    if (err instanceof MisplacedMemoryError) return { path: err.path, line: err.line, message: err.reason, misplaced: true };
    if (err instanceof InvalidMemoryError) return { path: err.path, line: err.line, message: err.reason };
    throw err;
  }
}

/** What the manifest remembers of a parsed file (its status as the file says it, until links are applied). */
export function entryOf(stat: FileStat, sha: string, meta: MemoryMeta, records: ChunkRecord[]): ManifestEntry {
  const entry: ManifestEntry = {
    size: stat.size,
    mtimeMs: stat.mtimeMs,
    sha,
    memoryId: meta.id,
    user: meta.user,
    type: meta.type,
    status: meta.status,
    chunkCount: records.length,
  };
  if (meta.expires) entry.expires = Date.parse(meta.expires);
  if (meta.key) entry.key = meta.key;
  if (meta.source) entry.source = meta.source;
  if (meta.supersedes) entry.supersedes = meta.supersedes;
  if (meta.sources?.length) entry.sources = meta.sources;
  if (meta.superseded_by) entry.supersededBy = meta.superseded_by;
  if (meta.consolidated_into) entry.consolidatedInto = meta.consolidated_into;
  return entry;
}
