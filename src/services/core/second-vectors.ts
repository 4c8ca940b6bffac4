// The second dense field's vectors: every unit row written to the index carries its bare text's
// vector from the second model, looked up in that model's own vector cache and embedded only when missing.
// A decorator of the index, so every write path (sync, rebuild, status changes) fills the field alike.
import { bareTextOf } from '../../memory/bare.js';
import { textHash } from '../../memory/hash.js';
import { EmbeddingError, errorMessage } from '../../errors.js';
import type { Embedder, IndexedChunk, IndexWriter, VectorCache } from '../ports.js';

export interface SecondModel {
  embedder: Embedder;
  /** Keyed by the unit's text hash (its embedding text's, as the first model's cache), apart from it (another identity). */
  cache: VectorCache;
  batchSize: number;
}

/**
 * Vectors of the bare texts of these rows' units, by the unit's text hash (as the first model's cache: what `mem gc`
 * keeps is then the same set of hashes): cached ones read, the rest embedded and cached.
 */
async function secondVectorsOf(model: SecondModel, rows: IndexedChunk[]): Promise<Map<string, number[]>> {
  const texts = new Map<string, string>();
  for (const r of rows) if (r.kind === 'unit') texts.set(r.textHash, bareTextOf(r.content, r.heading));
  const vectors = texts.size > 0 ? await model.cache.getMany([...texts.keys()]) : new Map<string, number[]>();
  const missing = await fromBareKeys(model, texts, vectors);
  for (let i = 0; i < missing.length; i += model.batchSize) {
    const hashes = missing.slice(i, i + model.batchSize);
    let embedded: number[][];
    try {
      embedded = await model.embedder.embedDocuments(hashes.map((h) => texts.get(h)!));
    } catch (err) {
      throw secondModelFailed(model, missing.length, err);
    }
    const fresh = new Map(hashes.map((h, j) => [h, embedded[j]!]));
    await model.cache.putMany(fresh);
    for (const [h, v] of fresh) vectors.set(h, v);
  }
  return vectors;
}

// Before caches were keyed like the first model's, they were keyed by the bare text's hash: a vector found that
// way is kept under the new key (and the old entry goes with the next `mem gc`), not embedded again. Returns the
// hashes still missing.
async function fromBareKeys(model: SecondModel, texts: Map<string, string>, vectors: Map<string, number[]>): Promise<string[]> {
  const missing = [...texts.keys()].filter((h) => !vectors.has(h));
  if (missing.length === 0) return missing;
  const bare = new Map(missing.map((h) => [textHash(texts.get(h)!), h]));
  const old = await model.cache.getMany([...bare.keys()]);
  if (old.size === 0) return missing;
  const moved = new Map([...old].map(([b, v]) => [bare.get(b)!, v]));
  await model.cache.putMany(moved);
  for (const [h, v] of moved) vectors.set(h, v);
  return missing.filter((h) => !moved.has(h));
}

// The rows of this batch are not written, so the manifest does not record their files: the next sync embeds the
// rest (what was embedded is cached) and writes them. Nothing of the files or of the index is lost meanwhile.
function secondModelFailed(model: SecondModel, count: number, err: unknown): EmbeddingError {
  return new EmbeddingError(
    `the second dense field's model (MEM_SECOND_MODEL, ${model.embedder.identity.name}) could not embed ${count} unit text(s): ${errorMessage(err)}. ` +
      'These files are not indexed yet and the next sync retries them; to index without the field, unset MEM_SECOND_MODEL (then `mem reindex --rebuild`)',
    { cause: err },
  );
}

async function withSecondVectors(model: SecondModel, rows: IndexedChunk[]): Promise<IndexedChunk[]> {
  const vectors = await secondVectorsOf(model, rows);
  return rows.map((r) => (r.kind === 'unit' ? { ...r, vector2: vectors.get(r.textHash)! } : r));
}

/** The index, its writes given the second field's vectors; reads and everything else pass through. */
export function secondVectorIndex<I extends Pick<IndexWriter, 'upsert' | 'insert'>>(index: I, model: SecondModel): I {
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
