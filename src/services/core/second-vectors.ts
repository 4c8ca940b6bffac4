// The second dense field's vectors (issue 12): every unit row written to the index carries its bare text's
// vector from the second model, looked up in that model's own vector cache and embedded only when missing.
// A decorator of the index, so every write path (sync, rebuild, status changes) fills the field alike.
import { bareTextOf } from '../../memory/bare.js';
import { textHash } from '../../memory/hash.js';
import type { Embedder, IndexedChunk, VectorCache, VectorIndex } from '../ports.js';

export interface SecondModel {
  embedder: Embedder;
  /** Keyed by the bare text's hash, apart from the first model's cache (another identity, other texts). */
  cache: VectorCache;
  batchSize: number;
}

/** Vectors of the bare texts of these rows' units, by text hash: cached ones read, the rest embedded and cached. */
async function secondVectorsOf(model: SecondModel, rows: IndexedChunk[]): Promise<Map<string, number[]>> {
  const texts = new Map<string, string>();
  for (const r of rows) {
    if (r.kind !== 'unit') continue;
    const bare = bareTextOf(r.content, r.heading);
    texts.set(textHash(bare), bare);
  }
  const vectors = texts.size > 0 ? await model.cache.getMany([...texts.keys()]) : new Map<string, number[]>();
  const missing = [...texts.keys()].filter((h) => !vectors.has(h));
  for (let i = 0; i < missing.length; i += model.batchSize) {
    const hashes = missing.slice(i, i + model.batchSize);
    const embedded = await model.embedder.embedDocuments(hashes.map((h) => texts.get(h)!));
    const fresh = new Map(hashes.map((h, j) => [h, embedded[j]!]));
    await model.cache.putMany(fresh);
    for (const [h, v] of fresh) vectors.set(h, v);
  }
  return vectors;
}

async function withSecondVectors(model: SecondModel, rows: IndexedChunk[]): Promise<IndexedChunk[]> {
  const vectors = await secondVectorsOf(model, rows);
  return rows.map((r) => (r.kind === 'unit' ? { ...r, vector2: vectors.get(textHash(bareTextOf(r.content, r.heading)))! } : r));
}

/** The index, its writes given the second field's vectors; reads and everything else pass through. */
export function secondVectorIndex(index: VectorIndex, model: SecondModel): VectorIndex {
  return new Proxy(index, {
    get(target, key, receiver) {
      if (key === 'upsert' || key === 'insert') {
        return async (rows: IndexedChunk[]) => target[key](await withSecondVectors(model, rows));
      }
      const value: unknown = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
