// Reading memory files back as documents: by path, or by memory id through the manifest.
import { decodeMemoryText } from '../../memory/decode.js';
import { parseMemory } from '../../memory/parse.js';
import type { MemoryDoc, MemoryMeta } from '../../memory/model.js';
import type { ManifestEntry } from '../ports.js';
import type { SyncDeps } from './sync.js';

/** Reads and parses one memory file; throws InvalidMemoryError (path and line) when it is not a memory. */
export async function loadDoc(deps: SyncDeps, path: string): Promise<MemoryDoc> {
  const [bytes, stat] = await Promise.all([deps.files.read(path), deps.files.stat(path)]);
  return parseMemory(decodeMemoryText(bytes, path), {
    path,
    defaultUser: deps.defaultUser,
    fallbackTime: new Date(stat?.mtimeMs ?? 0).toISOString(),
  });
}

/** The manifest's entries (empty when there is none: callers run ensureIndexed first). */
export async function manifestEntries(deps: SyncDeps): Promise<Map<string, ManifestEntry>> {
  return (await deps.manifest.load()) ?? new Map();
}

/** Where the memory with this id lives among these manifest entries (hand-made files may carry any id). */
export function pathOf(entries: Map<string, ManifestEntry>, id: string): string | undefined {
  for (const [path, entry] of entries) if (entry.memoryId === id) return path;
  return undefined;
}

/** Where the memory with this id lives, per the manifest. */
export async function findPath(deps: SyncDeps, id: string): Promise<string | undefined> {
  return pathOf(await manifestEntries(deps), id);
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
