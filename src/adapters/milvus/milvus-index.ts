// VectorIndex on Milvus (Lite, standalone, cluster or Zilliz Cloud) through the Node SDK.
import { createHash } from 'node:crypto';

import type { ConsistencyLevelEnum, MilvusClient } from '@zilliz/milvus2-sdk-node';

import { IndexUnavailableError, ModelMismatchError, errorMessage } from '../../errors.js';
import { lexicalForm } from '../../memory/lexical.js';
import { NO_EXPIRY } from '../../memory/lifecycle.js';
import { MAX_HEADING_CHARS } from '../../memory/model.js';
import type { ChunkRecord } from '../../memory/records.js';
import type {
  EmbeddingModelIdentity,
  IndexHit,
  IndexScope,
  IndexSearchRequest,
  IndexedChunk,
  LineSpan,
  OpenOptions,
  VectorIndex,
} from '../../services/ports.js';
import { buildFilter } from './filter.js';
import { milvusSdk } from './sdk.js';
import { hasLiteBuckets, liteBucket } from './lite-buckets.js';
import {
  EMBEDDING_PROPERTY,
  INSTANCE_PROPERTY,
  OUTPUT_FIELDS,
  SCHEMA_PROPERTY,
  SCHEMA_VERSION,
  SECOND_FIELD,
  WINDOW_OUTPUT_FIELDS,
  collectionSchema,
} from './schema.js';

export interface MilvusIndexOptions {
  /** host:port or a URI (http://, https://). */
  address: string;
  token?: string;
  collection: string;
  /** Added to "unavailable" errors: what the person can do (e.g. that a local server restarts on the next command). */
  unavailableHint?: string;
  /** The root's own Milvus Lite server, which cannot compact on request. */
  embedded?: boolean;
  /** The second dense field's model: part of the index's identity, so switching it asks for a rebuild. */
  second?: EmbeddingModelIdentity;
}

interface Status {
  error_code?: string | number;
  code?: number;
  reason?: string;
}

// Milvus caps offset + limit of one query at 16,384 rows.
const QUERY_WINDOW = 16_384;

// The SDK logs through winston to stdout (at debug level when NODE_ENV=test); stdout carries our
// results (--json), so its logger stays silent and errors reach us as exceptions instead.
milvusSdk.logger.silent = true;
const UPSERT_BATCH = 500;

function statusOf(res: { status?: Status } | Status): Status {
  return 'status' in res && res.status ? res.status : (res as Status);
}

/** Whether a response says the call succeeded. */
function succeeded(res: { status?: Status } | Status): boolean {
  const status = statusOf(res);
  const failed = status.error_code !== undefined && status.error_code !== 'Success' && status.error_code !== 0;
  return !failed && (status.code === undefined || status.code === 0);
}

function check<T extends { status?: Status } | Status>(res: T, what: string): T {
  if (succeeded(res)) return res;
  const status = statusOf(res);
  throw new IndexUnavailableError(`Milvus ${what} failed: ${status.reason || String(status.error_code)}`);
}

function embeddingKey(model: EmbeddingModelIdentity, second?: EmbeddingModelIdentity): string {
  return `${model.name}@${model.dimension}${second ? ` + ${second.name}@${second.dimension}` : ''}`;
}

// Every row needs a value in every vector field: a window (never searched by the second field, whose requests
// ask for units only) gets a placeholder. Spread, not one fixed vector: thousands of identical points wreck
// the HNSW graph, and a filtered search then found no unit at all in two of five LoCoMo conversations.
function placeholder(dimension: number, chunkId: string): number[] {
  const v: number[] = [];
  for (let block = 0; v.length < dimension; block++) {
    for (const byte of createHash('sha256').update(`${block}\u0000${chunkId}`).digest()) v.push(byte / 127.5 - 1);
  }
  v.length = dimension;
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

function toRow(c: IndexedChunk, second?: EmbeddingModelIdentity) {
  return {
    ...baseRow(c),
    ...(second ? { [SECOND_FIELD]: c.vector2 ?? placeholder(second.dimension, c.chunkId) } : {}),
  };
}

/** The text cut to `max` characters (code points, as Milvus counts a VarChar), never inside a surrogate pair. */
function clipChars(text: string, max: number): string {
  return text.length <= max ? text : Array.from(text).slice(0, max).join('');
}

function baseRow(c: IndexedChunk) {
  return {
    chunk_id: c.chunkId,
    kind: c.kind,
    memory_id: c.memoryId,
    user: c.user,
    type: c.type,
    status: c.status,
    importance: c.importance,
    created: c.created,
    updated: c.updated,
    expires: c.expires,
    path: c.path,
    // A heading over the field's length failed the whole write; it only labels the unit (the content keeps it whole).
    heading: clipChars(c.heading, MAX_HEADING_CHARS),
    line_start: c.lineStart,
    line_end: c.lineEnd,
    tags: c.tags,
    content: c.content,
    lexical: lexicalForm(c.content).slice(0, 65535),
    vector: c.vector,
  };
}

function fromRow(row: Record<string, unknown>): Omit<ChunkRecord, 'textHash'> {
  return {
    chunkId: String(row.chunk_id),
    kind: row.kind === 'window' ? 'window' : 'unit',
    memoryId: String(row.memory_id),
    user: String(row.user),
    type: row.type as ChunkRecord['type'],
    status: row.status as ChunkRecord['status'],
    importance: Number(row.importance),
    created: Number(row.created),
    updated: Number(row.updated),
    expires: Number(row.expires ?? NO_EXPIRY),
    path: String(row.path),
    heading: String(row.heading ?? ''),
    lineStart: Number(row.line_start),
    lineEnd: Number(row.line_end),
    tags: Array.isArray(row.tags) ? row.tags.map(String) : [],
    content: String(row.content ?? ''),
  };
}

// How often a load that is not over yet is looked at again.
const LOAD_POLL_MS = 100;

// A manual compaction of a small collection finishes in seconds; past this, forget reports it as requested.
const COMPACTION_WAIT_MS = 60_000;

// Every read of rows (search, query, count) is Strong: it sees every write the server acknowledged before
// the read began, whichever process wrote it (`mem add`, then a search from the MCP server or the daemon).
// A collection's default is Bounded (a few seconds stale) and Session needs the client to send its last
// write's timestamp, which this SDK does not track and which another process could not know; Milvus Lite
// ignores the level. It goes by name: the SDK's search replaces a falsy level, and ConsistencyLevelEnum.Strong
// is 0, by the collection's default (utils/Search.js, `params.consistency_level || collectionInfo...`).
const READ_CONSISTENCY = 'Strong' as unknown as ConsistencyLevelEnum;

export class MilvusIndex implements VectorIndex {
  private sdk: MilvusClient | undefined;
  private opened = false;
  /** The collection's instance id, read when it is opened (undefined for one created before memdir recorded it). */
  private instance: string | undefined;
  /** Milvus Lite with its partition-key buckets: a user's search names its bucket (lite-buckets.ts). */
  private bucketed = false;
  readonly location: string;

  constructor(private readonly options: MilvusIndexOptions) {
    this.location = `${options.address} (collection ${options.collection})`;
  }

  /** Made on first use: loading the SDK's protocol definitions takes a command 0.2-2 s, wasted when it needs no index. */
  private get client(): MilvusClient {
    this.sdk ??= new milvusSdk.MilvusClient({
      address: this.options.address,
      ...(this.options.token ? { token: this.options.token } : {}),
      // The SDK's default 10 s keepalive pings make Python gRPC servers (Milvus Lite) drop the connection.
      channelOptions: { 'grpc.keepalive_time_ms': 2147483647, 'grpc.keepalive_permit_without_calls': 0 },
      timeout: 60_000,
    });
    // The SDK starts connecting in its constructor and leaves that promise without a handler until a call awaits
    // it: a server that refuses the connection would crash the process with an unhandled rejection instead of
    // failing the call with memdir's message (each call still awaits, and reports, the same rejection).
    (this.sdk as unknown as { connectPromise?: Promise<unknown> }).connectPromise?.catch(() => undefined);
    return this.sdk;
  }

  private get name() {
    return this.options.collection;
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof IndexUnavailableError || err instanceof ModelMismatchError) throw err;
      const hint = this.options.unavailableHint ? `. ${this.options.unavailableHint}` : '';
      throw new IndexUnavailableError(`Milvus at ${this.options.address} unavailable during ${what}: ${errorMessage(err)}${hint}`, { cause: err });
    }
  }

  async open(model: EmbeddingModelIdentity, options: OpenOptions = {}): Promise<string | undefined> {
    if (this.opened && !options.recheck) return this.instance;
    const expected = embeddingKey(model, this.options.second);
    await this.call('open', async () => {
      // Described first: the SDK's hasCollection is a describe too, so an existing collection costs one call, not two.
      // Its load state and partitions are asked at the same time, not after it: one round trip instead of three on
      // every open of an existing collection (an edit's critical path); their answers are used
      // only once the describe found the collection and its identity matched.
      const described = this.client.describeCollection({ collection_name: this.name });
      const early: { state?: Promise<string>; partitions?: Promise<string[]> } = {
        state: this.loadStateOf(),
        partitions: this.options.embedded ? this.partitionNames() : undefined,
      };
      let desc = await described;
      if (!succeeded(desc)) {
        early.state = early.partitions = undefined;
        const exists = check(await this.client.hasCollection({ collection_name: this.name }), 'hasCollection');
        if (exists.value) check(desc, 'describeCollection');
        const created = await this.client.createCollection(collectionSchema(this.name, model.dimension, expected, this.options.second?.dimension));
        // Another process may have created it a moment ago; that is fine, the check below still runs.
        if (!/already exist/i.test(created.reason ?? '')) check(created, 'createCollection');
        desc = check(await this.client.describeCollection({ collection_name: this.name }), 'describeCollection');
      }
      const property = (key: string) => desc.properties?.find((p: { key: string }) => p.key === key)?.value;
      const schema = property(SCHEMA_PROPERTY);
      if (schema !== SCHEMA_VERSION) {
        throw new ModelMismatchError(
          `the index ${this.name} has layout version ${schema ?? '(unknown)'}, this memdir writes version ${SCHEMA_VERSION}; ` +
            'run `mem reindex --rebuild` to rebuild it (cached vectors are reused)',
        );
      }
      const instance = property(INSTANCE_PROPERTY);
      this.instance = instance ? String(instance) : undefined;
      const actual = property(EMBEDDING_PROPERTY);
      if (actual !== expected) {
        throw new ModelMismatchError(
          `the index ${this.name} was built with embedding model ${actual ?? '(unknown)'} but ${expected} is configured; ` +
            'run `mem reindex --rebuild` to rebuild it with the configured model',
        );
      }
      await this.load(await (early.state ?? this.loadStateOf()));
      if (this.options.embedded) this.bucketed = hasLiteBuckets(await (early.partitions ?? this.partitionNames()));
    });
    this.opened = true;
    return this.instance;
  }

  /**
   * Loads the collection and waits until it is. Not the SDK's loadCollection: that sleeps 400 ms after every look at
   * the progress, even when the collection was loaded already (every open of every command paid it). Nor a load
   * request when it is loaded: Milvus Lite answers one only under the collection's maintenance lock, which its
   * background compaction holds for seconds after a big write (engine/collection.py, load and _bg_compact_and_index).
   */
  private async load(state: string): Promise<void> {
    if (state === 'LoadStateLoaded') return;
    check(await this.client.loadCollectionAsync({ collection_name: this.name }), 'loadCollection');
    for (;;) {
      const res = check(await this.client.getLoadingProgress({ collection_name: this.name }), 'getLoadingProgress');
      if (Number(res.progress) >= 100) return;
      await new Promise((resolve) => setTimeout(resolve, LOAD_POLL_MS));
    }
  }

  /**
   * The collection's load state, or the call's failure as a rejection; a rejection nobody awaits (the describe failed
   * first) is not an unhandled one.
   */
  private loadStateOf(): Promise<string> {
    const state = this.client.getLoadState({ collection_name: this.name }).then((res) => String(check(res, 'getLoadState').state));
    state.catch(() => undefined);
    return state;
  }

  /** The collection's partition names, as loadStateOf. */
  private partitionNames(): Promise<string[]> {
    const names = this.client.showPartitions({ collection_name: this.name }).then((res) => check(res, 'showPartitions').partition_names ?? []);
    names.catch(() => undefined);
    return names;
  }

  /** The partitions that can hold the scope's rows, when Milvus Lite would otherwise scan them all. The filter still names the users. */
  private partitionsOf(scope: IndexScope): { partition_names?: string[] } {
    if (!this.bucketed || scope.users === 'all') return {};
    return { partition_names: [...new Set(scope.users.map(liteBucket))] };
  }

  async drop(): Promise<void> {
    await this.call('drop', async () => {
      const exists = check(await this.client.hasCollection({ collection_name: this.name }), 'hasCollection');
      if (exists.value) check(await this.client.dropCollection({ collection_name: this.name }), 'dropCollection');
    });
    this.opened = false;
  }

  async upsert(rows: IndexedChunk[]): Promise<void> {
    for (let i = 0; i < rows.length; i += UPSERT_BATCH) {
      const data = rows.slice(i, i + UPSERT_BATCH).map((r) => toRow(r, this.options.second));
      await this.call('upsert', async () => check(await this.client.upsert({ collection_name: this.name, data }), 'upsert'));
    }
  }

  async insert(rows: IndexedChunk[]): Promise<void> {
    for (let i = 0; i < rows.length; i += UPSERT_BATCH) {
      const data = rows.slice(i, i + UPSERT_BATCH).map((r) => toRow(r, this.options.second));
      await this.call('insert', async () => check(await this.client.insert({ collection_name: this.name, data }), 'insert'));
    }
  }

  async deleteChunks(chunkIds: string[]): Promise<void> {
    for (let i = 0; i < chunkIds.length; i += UPSERT_BATCH) {
      const filter = buildFilter({ users: 'all', chunkIds: chunkIds.slice(i, i + UPSERT_BATCH) });
      await this.call('delete', async () => check(await this.deleteWhere(filter), 'delete'));
    }
  }

  async deleteStale(paths: string[], keep: string[]): Promise<void> {
    if (paths.length === 0) return;
    const filter = buildFilter({ users: 'all', paths, excludeChunkIds: keep });
    await this.call('delete', async () => check(await this.deleteWhere(filter), 'delete'));
  }

  /**
   * The SDK's deleteEntities, not its delete: with a filter the two send the same request, but delete first describes
   * the collection twice (for a primary key it then does not use), two round trips more for every delete of an edit.
   */
  private deleteWhere(filter: string) {
    return this.client.deleteEntities({ collection_name: this.name, filter });
  }

  async delete(scope: IndexScope): Promise<void> {
    const filter = buildFilter(scope) || 'chunk_id != ""';
    await this.call('delete', async () => check(await this.deleteWhere(filter), 'delete'));
  }

  async search(req: IndexSearchRequest): Promise<IndexHit[]> {
    const filter = buildFilter({ ...req.scope, kinds: [req.kind ?? 'unit'] });
    const common = {
      collection_name: this.name,
      limit: req.limit,
      output_fields: req.kind === 'window' ? WINDOW_OUTPUT_FIELDS : OUTPUT_FIELDS,
      // Strong: `mem add` in one process, then this search in another must find it (READ_CONSISTENCY).
      consistency_level: READ_CONSISTENCY,
      ...(filter ? { filter } : {}),
      ...this.partitionsOf(req.scope),
    };
    const res = await this.call('search', async () =>
      req.mode === 'dense' || req.mode === 'second'
        ? this.client.search({ ...common, anns_field: req.mode === 'dense' ? 'vector' : SECOND_FIELD, data: req.queryVector, metric_type: 'COSINE' })
        : this.client.search({ ...common, anns_field: 'sparse', data: [lexicalForm(req.queryText)], metric_type: 'BM25' }),
    );
    check(res, 'search');
    const hits = (res.results ?? []) as Record<string, unknown>[];
    return hits.map((h) => ({ record: fromRow(h), score: normaliseScore(req.mode, Number(h.score)) }));
  }

  async unitsWithin(scope: IndexScope, spans: LineSpan[], limit: number): Promise<IndexHit['record'][]> {
    if (spans.length === 0) return [];
    const filter = buildFilter({ ...scope, kinds: ['unit'], within: spans });
    const res = await this.call('query', async () =>
      this.client.query({
        collection_name: this.name,
        filter,
        output_fields: OUTPUT_FIELDS,
        limit,
        consistency_level: milvusSdk.ConsistencyLevelEnum.Strong,
        ...this.partitionsOf(scope),
      }),
    );
    check(res, 'query');
    return ((res.data ?? []) as Record<string, unknown>[]).map(fromRow);
  }

  async flush(): Promise<void> {
    // Milvus Lite keeps unflushed rows in an unindexed memtable (up to 128 MB): searching 3,000 such
    // rows took about 900 ms against about 25 ms once flushed into indexed segments.
    await this.call('flush', async () => check(await this.client.flush({ collection_names: [this.name] }), 'flush'));
  }

  async compact(): Promise<'compacted' | 'requested' | 'unsupported'> {
    // Milvus Lite 3.2.2 answers ManualCompaction with success and does nothing (adapter/grpc/servicer.py); its own
    // compaction runs only once a partition holds 4 similar-sized files, so deleted rows can stay on disk for good.
    if (this.options.embedded) return 'unsupported';
    return this.call('compact', async () => {
      const started = check(await this.client.compact({ collection_name: this.name }), 'compact') as { compactionID: string };
      const deadline = Date.now() + COMPACTION_WAIT_MS;
      while (Date.now() < deadline) {
        const state = await this.client.getCompactionState({ compactionID: started.compactionID });
        if (String(state.state) === 'Completed' || Number(state.state) === 2) return 'compacted';
        await new Promise((r) => setTimeout(r, 500));
      }
      return 'requested';
    });
  }

  async count(scope: IndexScope): Promise<number> {
    const filter = buildFilter(scope);
    // A query of count(*), not the SDK's count(), which drops the consistency level. Strong: forget reports the rows
    // left right after its delete, and status compares the count with the manifest; a stale count would say rows
    // remain, or drift, where none do.
    const res = await this.call('count', async () =>
      this.client.query({
        collection_name: this.name,
        ...(filter ? { filter } : {}),
        output_fields: ['count(*)'],
        consistency_level: READ_CONSISTENCY,
      }),
    );
    check(res, 'count');
    return Number(res.data[0]?.['count(*)'] ?? 0);
  }

  async listPaths(): Promise<string[]> {
    const paths = new Set<string>();
    await this.scanRows(['path'], (row) => paths.add(String(row.path)));
    return [...paths];
  }

  async listChunks(): Promise<{ chunkId: string; path: string }[]> {
    const chunks: { chunkId: string; path: string }[] = [];
    await this.scanRows(['chunk_id', 'path'], (row) => chunks.push({ chunkId: String(row.chunk_id), path: String(row.path) }));
    return chunks;
  }

  /** Every row of the collection, by chunk id prefix (Lite has no usable iterator), each seen exactly once. */
  private async scanRows(fields: string[], visit: (row: Record<string, unknown>) => void): Promise<void> {
    const hex = '0123456789abcdef';
    const queue = [...hex];
    while (queue.length > 0) {
      const prefix = queue.shift()!;
      const res = await this.call('query', async () =>
        this.client.query({
          collection_name: this.name,
          filter: buildFilter({ users: 'all', chunkIdPrefix: prefix }),
          output_fields: fields,
          limit: QUERY_WINDOW,
          // Strong: the sync and doctor compare these rows with the files right after writing them.
          consistency_level: READ_CONSISTENCY,
        }),
      );
      check(res, 'query');
      const rows = (res.data ?? []) as Record<string, unknown>[];
      // A full window may have cut rows off: look again with longer prefixes (and count none of these twice).
      if (rows.length >= QUERY_WINDOW) queue.push(...[...hex].map((c) => prefix + c));
      else rows.forEach(visit);
    }
  }

  async close(): Promise<void> {
    await this.sdk?.closeConnection().catch(() => undefined);
  }
}

/**
 * Scores as "higher is better": COSINE similarity as is ([-1, 1]); BM25 comes back negated from
 * Milvus Lite (more negative = better, seen in the integration test), so its magnitude is used.
 */
function normaliseScore(mode: IndexSearchRequest['mode'], raw: number): number {
  return mode === 'bm25' ? Math.abs(raw) : raw;
}
