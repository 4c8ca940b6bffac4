// In-memory test doubles for the service ports: a VectorIndex over a Map of rows, and a deterministic hash Embedder.
import { createHash, randomUUID } from 'node:crypto';

import { ModelMismatchError } from '../../src/errors.js';
import type {
  Embedder,
  EmbeddingModelIdentity,
  IndexedChunk,
  IndexHit,
  IndexScope,
  IndexSearchRequest,
  LineSpan,
  VectorIndex,
} from '../../src/services/ports.js';

function matchesScope(row: IndexedChunk, scope: IndexScope): boolean {
  if (scope.users !== 'all' && !scope.users.includes(row.user)) return false;
  if (scope.statuses && !scope.statuses.includes(row.status)) return false;
  if (scope.types && !scope.types.includes(row.type)) return false;
  if (scope.notExpiredAt !== undefined && !(row.expires > scope.notExpiredAt)) return false;
  if (scope.paths && !scope.paths.includes(row.path)) return false;
  if (scope.memoryIds && !scope.memoryIds.includes(row.memoryId)) return false;
  if (scope.tags && !scope.tags.some((t) => row.tags.includes(t))) return false;
  return true;
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * (b[i] ?? 0);
    na += a[i]! * a[i]!;
    nb += (b[i] ?? 0) * (b[i] ?? 0);
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * Every role of the index (a VectorIndex), keeping rows in a Map by chunk id; records every call for assertions. It is
 * whole because it stands in for what the composition root holds: the use cases' deps (each takes some of its roles)
 * and the inner index the worker and daemon adapters wrap.
 */
export class InMemoryIndex implements VectorIndex {
  readonly location = 'memory://test';
  readonly rows = new Map<string, IndexedChunk>();
  model: EmbeddingModelIdentity | null = null;
  readonly calls = {
    open: 0,
    drop: 0,
    upsert: 0,
    insert: 0,
    deleteChunks: 0,
    deleteStale: 0,
    delete: 0,
    flush: 0,
    search: 0,
    count: 0,
    listPaths: 0,
    listChunks: 0,
  };

  /** The collection's instance id: a new one after a drop, as a collection created anew gets. */
  instance = randomUUID();

  async open(model: EmbeddingModelIdentity): Promise<string | undefined> {
    this.calls.open++;
    if (this.model && (this.model.name !== model.name || this.model.dimension !== model.dimension)) {
      throw new ModelMismatchError(`index built with ${this.model.name}/${this.model.dimension}`);
    }
    this.model = { ...model };
    return this.instance;
  }

  async drop(): Promise<void> {
    this.calls.drop++;
    this.rows.clear();
    this.model = null;
    this.instance = randomUUID();
  }

  async upsert(rows: IndexedChunk[]): Promise<void> {
    this.calls.upsert++;
    for (const row of rows) {
      if (this.model && row.vector.length !== this.model.dimension) {
        throw new Error(`vector of dimension ${row.vector.length}, index expects ${this.model.dimension}`);
      }
      this.rows.set(row.chunkId, { ...row, tags: [...row.tags], vector: [...row.vector] });
    }
  }

  /** Milvus would keep both rows of a repeated primary key: here that misuse fails loudly. */
  async insert(rows: IndexedChunk[]): Promise<void> {
    this.calls.insert++;
    for (const row of rows) if (this.rows.has(row.chunkId)) throw new Error(`insert of chunk ${row.chunkId}, which the index already holds`);
    this.calls.upsert--;
    await this.upsert(rows);
  }

  async deleteChunks(chunkIds: string[]): Promise<void> {
    this.calls.deleteChunks++;
    for (const id of chunkIds) this.rows.delete(id);
  }

  async deleteStale(paths: string[], keep: string[]): Promise<void> {
    this.calls.deleteStale++;
    const kept = new Set(keep);
    const inPaths = new Set(paths);
    for (const [id, row] of this.rows) if (inPaths.has(row.path) && !kept.has(id)) this.rows.delete(id);
  }

  async delete(scope: IndexScope): Promise<void> {
    this.calls.delete++;
    for (const [id, row] of this.rows) if (matchesScope(row, scope)) this.rows.delete(id);
  }

  async search(request: IndexSearchRequest): Promise<IndexHit[]> {
    this.calls.search++;
    const words = request.mode === 'bm25' ? request.queryText.toLowerCase().split(/\W+/).filter(Boolean) : [];
    const hits: IndexHit[] = [];
    for (const row of this.rows.values()) {
      if (!matchesScope(row, request.scope) || row.kind !== (request.kind ?? 'unit')) continue;
      if (request.mode === 'second' && !row.vector2) continue; // a row written without the second field
      const score =
        request.mode === 'dense'
          ? cosine(request.queryVector, row.vector)
          : request.mode === 'second'
            ? cosine(request.queryVector, row.vector2!)
            : words.filter((w) => row.content.toLowerCase().includes(w)).length;
      if (request.mode === 'bm25' && score === 0) continue; // BM25 only returns rows sharing a term
      const { textHash: _textHash, vector: _vector, vector2: _vector2, ...record } = row;
      hits.push({ record, score });
    }
    return hits.sort((a, b) => b.score - a.score).slice(0, request.limit);
  }

  async unitsWithin(scope: IndexScope, spans: LineSpan[], limit: number): Promise<IndexHit['record'][]> {
    const inside = (r: IndexedChunk) => spans.some((s) => s.path === r.path && r.lineStart >= s.lineStart && r.lineEnd <= s.lineEnd);
    return [...this.rows.values()]
      .filter((r) => r.kind === 'unit' && matchesScope(r, scope) && inside(r))
      .slice(0, limit)
      .map(({ textHash: _textHash, vector: _vector, vector2: _vector2, ...record }) => record);
  }

  /** In memory, a deleted row leaves nothing behind. */
  async compact(): Promise<'compacted'> {
    return 'compacted';
  }

  async flush(): Promise<void> {
    this.calls.flush++;
  }

  async count(scope: IndexScope): Promise<number> {
    this.calls.count++;
    return [...this.rows.values()].filter((r) => matchesScope(r, scope)).length;
  }

  async listPaths(): Promise<string[]> {
    this.calls.listPaths++;
    return [...new Set([...this.rows.values()].map((r) => r.path))];
  }

  async listChunks(): Promise<{ chunkId: string; path: string }[]> {
    this.calls.listChunks++;
    return [...this.rows.values()].map((r) => ({ chunkId: r.chunkId, path: r.path }));
  }

  async close(): Promise<void> {}

  /** Rows of one file, ordered by line. */
  rowsOf(path: string): IndexedChunk[] {
    return [...this.rows.values()].filter((r) => r.path === path).sort((a, b) => a.lineStart - b.lineStart);
  }
}

/** Deterministic vector of a text: SHA-256 bytes spread over `dimension` floats in [-1, 1]. */
export function hashVector(text: string, dimension: number): number[] {
  const out: number[] = [];
  let block = 0;
  while (out.length < dimension) {
    const digest = createHash('sha256').update(`${block++}\u0000${text}`).digest();
    for (const byte of digest) {
      if (out.length === dimension) break;
      out.push(byte / 127.5 - 1);
    }
  }
  return out;
}

/** An Embedder whose vectors are hashes of the text; counts calls and embedded texts. */
export class HashEmbedder implements Embedder {
  readonly identity: EmbeddingModelIdentity;
  /** Every text passed to embedDocuments, in order. */
  readonly embeddedTexts: string[] = [];
  documentCalls = 0;
  queryCalls = 0;

  constructor(dimension = 8, name = 'hash-test') {
    this.identity = { name, dimension };
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    this.documentCalls++;
    this.embeddedTexts.push(...texts);
    return texts.map((t) => hashVector(t, this.identity.dimension));
  }

  async embedQuery(text: string): Promise<number[]> {
    this.queryCalls++;
    return hashVector(text, this.identity.dimension);
  }

  reset(): void {
    this.embeddedTexts.length = 0;
    this.documentCalls = 0;
    this.queryCalls = 0;
  }
}
