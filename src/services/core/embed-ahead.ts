// Embeds the new texts of the few files modified since the last sync while that sync loads its manifest and walks its files.
import type { ChunkOptions } from '../../memory/chunk.js';
import type { Embedder, FileStat, MemoryFiles, VectorCache } from '../ports.js';

/** What it uses of the sync's dependencies (SyncDeps). */
export interface AheadDeps {
  files: Pick<MemoryFiles, 'read'>;
  cache: VectorCache;
  embedder: Pick<Embedder, 'embedDocuments'>;
  chunking: ChunkOptions;
  defaultUser: string;
  maxFileBytes: number;
  embedBatchSize: number;
}

/**
 * More changed files than this are a bulk change (a checkout, a copy): the sync's batches embed them, and a request
 * sent ahead would only compete with the manifest's load for the cores.
 */
export const AHEAD_MAX_FILES = 8;

/** What was embedded ahead: vectors of texts the cache lacked, not cached yet (the sync caches those it uses). */
export interface AheadVectors {
  vectors: Map<string, number[]>;
  /** The hashes sent to the embedder; `error` is set when that request failed. */
  attempted: Set<string>;
  error?: unknown;
}

const NOTHING: AheadVectors = { vectors: new Map(), attempted: new Set() };

/** The embedding under way: `sent` once its request is on its way (or there is none), `done` with its vectors. */
export interface Ahead {
  sent: Promise<void>;
  done: Promise<AheadVectors>;
}

// Event-loop turns given to a request to connect and write itself to a local server before the caller's synchronous
// work (the manifest's decoding) holds the loop: two are needed on an idle machine (connect, then write).
const SEND_TURNS = 4;

/**
 * Reads and parses `files` (files dated after the manifest's last save, found by the scan), looks their texts up in the
 * vector cache and sends those it lacks to the embedder. An edit's embedding (0.3-0.5 s for one paragraph and its
 * windows on the local model) then runs while the manifest loads and the loop skips the unchanged files, instead of
 * after them. A hint only: a file that cannot be read or parsed is left to the sync, which
 * reports it; the sync embeds whatever this did not. Neither promise rejects; the caller awaits `done` before the sync
 * ends (no request outlives the lock).
 */
export function embedAhead(deps: AheadDeps, files: FileStat[]): Ahead {
  if (files.length === 0 || files.length > AHEAD_MAX_FILES) return { sent: Promise.resolve(), done: Promise.resolve(NOTHING) };
  let markSent = (): void => undefined;
  const sent = new Promise<void>((resolve) => (markSent = resolve));
  const done = embedNew(deps, files, () => {
    void (async () => {
      for (let i = 0; i < SEND_TURNS; i++) await new Promise((resolve) => setImmediate(resolve));
      markSent();
    })();
  }).finally(markSent);
  return { sent, done };
}

/** The texts of `files` the cache lacks, embedded; `onRequest` is told once the first request is made. */
async function embedNew(deps: AheadDeps, files: FileStat[], onRequest: () => void): Promise<AheadVectors> {
  const texts = new Map<string, string>();
  try {
    const { recordsOf } = await import('./file-records.js');
    for (const stat of files) {
      if (stat.size > deps.maxFileBytes) continue;
      const parsed = recordsOf(deps, stat, await deps.files.read(stat.path));
      if ('records' in parsed) for (const r of parsed.records) texts.set(r.textHash, r.content);
    }
    if (texts.size === 0) return NOTHING;
    await deps.cache.preload?.();
    const cached = await deps.cache.getMany([...texts.keys()]);
    for (const h of cached.keys()) texts.delete(h);
  } catch {
    return NOTHING; // unreadable or gone since the scan, or a cache error: the sync meets it again and says so
  }
  const hashes = [...texts.keys()];
  const ahead: AheadVectors = { vectors: new Map(), attempted: new Set(hashes) };
  try {
    for (let i = 0; i < hashes.length; i += deps.embedBatchSize) {
      const part = hashes.slice(i, i + deps.embedBatchSize);
      const request = deps.embedder.embedDocuments(part.map((h) => texts.get(h)!));
      if (i === 0) onRequest();
      const vectors = await request;
      part.forEach((h, j) => ahead.vectors.set(h, vectors[j]!));
    }
  } catch (err) {
    ahead.error = err; // the sync fails with it if it needs these texts, rather than waiting for a second failure
  }
  return ahead;
}
