// Reading memory files back as documents: by path, or by memory id through the manifest.
import { decodeMemoryText } from '../../memory/decode.js';
import { parseMemory } from '../../memory/parse.js';
import type { MemoryDoc, MemoryMeta } from '../../memory/model.js';
import type { ManifestEntry } from '../ports.js';
import { pathsOf, resolveId } from './duplicates.js';
import type { SyncDeps } from './sync.js';

/** What reading a memory file back needs: the files, and the user a file without one belongs to. */
type ReadDeps = Pick<SyncDeps, 'files' | 'defaultUser'>;

/** Reads and parses one memory file; throws InvalidMemoryError (path and line) when it is not a memory. */
export async function loadDoc(deps: ReadDeps, path: string): Promise<MemoryDoc> {
  return (await loadDocAndBytes(deps, path)).doc;
}

/** The memory and the bytes it was parsed from (a rewrite keeps their line endings and byte order mark). */
export async function loadDocAndBytes(deps: ReadDeps, path: string): Promise<{ doc: MemoryDoc; bytes: Uint8Array }> {
  const [bytes, stat] = await Promise.all([deps.files.read(path), deps.files.stat(path)]);
  const doc = parseMemory(decodeMemoryText(bytes, path), {
    path,
    defaultUser: deps.defaultUser,
    fallbackTime: new Date(stat?.mtimeMs ?? 0).toISOString(),
  });
  return { doc, bytes };
}

/** The manifest's entries (empty when there is none: callers run ensureIndexed first). */
export async function manifestEntries(deps: SyncDeps): Promise<Map<string, ManifestEntry>> {
  return (await deps.manifest.load()) ?? new Map();
}

/** Where the memory with this id lives among these manifest entries, within the user's scope when one is given. */
export function pathOf(entries: Map<string, ManifestEntry>, id: string, user?: string): string | undefined {
  return pathsOf(entries, id, user)[0];
}

/** Where the memory with this id lives in the user's scope, per the manifest; an id several files carry is an error. */
export async function findPath(deps: SyncDeps, id: string, user?: string): Promise<string | undefined> {
  return resolveId(deps, await manifestEntries(deps), id, user);
}

/** A memory as the library returns it: its metadata and its Markdown body. */
export interface MemoryRecord extends Omit<MemoryMeta, 'extra'> {
  path: string;
  content: string;
}

export function toRecord(doc: MemoryDoc): MemoryRecord {
  const { extra: _extra, ...meta } = doc.meta;
  return { ...meta, path: doc.path, content: doc.body.trim() };
}

/**
 * The record with the status its index rows carry: a hand-written correction or summary naming it
 * overrides the status its own file says (the file is not rewritten; see links.ts).
 */
export function withIndexedStatus(record: MemoryRecord, entry: ManifestEntry | undefined): MemoryRecord {
  return entry?.fileStatus !== undefined && entry.fileStatus === record.status ? { ...record, status: entry.status } : record;
}
