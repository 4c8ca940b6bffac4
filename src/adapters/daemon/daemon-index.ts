// The index through the running search daemon for small writes and lookups, else through this process's own client.
import { existsSync } from 'node:fs';

import { askDaemon } from './client.js';
import { encodeVector, socketPath, type DaemonResponse, type DaemonTarget, type IndexCall } from './protocol.js';
import type {
  EmbeddingModelIdentity,
  IndexHit,
  OpenOptions,
  IndexScope,
  IndexSearchRequest,
  IndexedChunk,
  LineSpan,
  VectorIndex,
} from '../../services/ports.js';

/** Sends one index call to the daemon: its answer, or null (no daemon, declined, timed out). */
export type AskDaemon = (target: DaemonTarget, op: 'index', input: IndexCall, timeoutMs: number) => Promise<DaemonResponse | null>;

export interface DaemonIndexOptions {
  /** The daemon of this configuration, and the root whose index is called. */
  target: DaemonTarget;
  /** Rows a call may carry to the daemon (default 256): a bigger call, and every call after it, uses the own client. */
  maxRows?: number;
  /** How long a call waits for the daemon's answer (default 30 s) before the own client makes it. */
  timeoutMs?: number;
  /** The transport (tests pass a fake). */
  ask?: AskDaemon;
}

const MAX_ROWS = 256;
// Ids and paths are small: a delete of this many still makes a short request.
const MAX_IDS = 4_096;
const TIMEOUT_MS = 30_000;

/** Whether a daemon of this configuration may be running (its socket is there): small writes then go to it. */
export function daemonMayRun(target: DaemonTarget): boolean {
  return existsSync(socketPath(target));
}

const encodeRows = (rows: IndexedChunk[]) => rows.map((r) => ({ ...r, vector: encodeVector(r.vector) }));

/**
 * A `mem` process that writes a few rows spends most of its index time loading the Milvus SDK and building its client
 * (~0.65 s of CPU on an idle machine, 1-4 s loaded), while the search daemon
 * holds both, loaded, for the same root. So while the calls are small and the daemon has this root open with the same
 * index (server and collection), each call goes to the daemon, which answers once the index acknowledged it: the
 * next command sees the write exactly as if this process had made it. The first call the daemon does not answer
 * (none runs, it declined, failed or timed out) or that is too big, and every call after it, goes through the own
 * index: nothing changes for a full index, or without a daemon. A failed call is made again by the own client, so an
 * insert that may have reached the index becomes an upsert (the same rows, whichever wrote them first).
 */
export class DaemonIndex implements VectorIndex {
  readonly location: string;
  /** Set once a call went to the own index: the rest follow it (its client is loaded by then, and calls stay in order). */
  private own = false;
  private readonly ask: AskDaemon;

  constructor(
    private readonly index: VectorIndex,
    private readonly options: DaemonIndexOptions,
  ) {
    this.location = index.location;
    this.ask = options.ask ?? ((target, op, input, timeoutMs) => askDaemon(target, op, input, timeoutMs));
  }

  /** Whether calls still go to the daemon (for tests and the bench). */
  get throughDaemon(): boolean {
    return !this.own;
  }

  open = (model: EmbeddingModelIdentity, options?: OpenOptions) =>
    this.call(
      'open',
      () => (options ? [model, options] : [model]),
      true,
      () => this.index.open(model, options),
    );
  upsert = (rows: IndexedChunk[]) =>
    this.call(
      'upsert',
      () => [encodeRows(rows)],
      this.fewRows(rows),
      () => this.index.upsert(rows),
    );
  insert = (rows: IndexedChunk[]) =>
    this.call(
      'insert',
      () => [encodeRows(rows)],
      this.fewRows(rows),
      () => this.index.insert(rows),
      () => this.index.upsert(rows),
    );
  deleteChunks = (chunkIds: string[]) =>
    this.call(
      'deleteChunks',
      () => [chunkIds],
      chunkIds.length <= MAX_IDS,
      () => this.index.deleteChunks(chunkIds),
    );
  deleteStale = (paths: string[], keep: string[]) =>
    this.call(
      'deleteStale',
      () => [paths, keep],
      paths.length + keep.length <= MAX_IDS,
      () => this.index.deleteStale(paths, keep),
    );
  delete = (scope: IndexScope) =>
    this.call(
      'delete',
      () => [scope],
      true,
      () => this.index.delete(scope),
    );
  flush = () =>
    this.call(
      'flush',
      () => [],
      true,
      () => this.index.flush(),
    );
  search = (request: IndexSearchRequest): Promise<IndexHit[]> =>
    this.call(
      'search',
      () => [request.mode === 'dense' ? { ...request, queryVector: encodeVector(request.queryVector) } : request],
      true,
      () => this.index.search(request),
    );
  unitsWithin = (scope: IndexScope, spans: LineSpan[], limit: number): Promise<IndexHit['record'][]> =>
    this.call(
      'unitsWithin',
      () => [scope, spans, limit],
      spans.length <= MAX_IDS,
      () => this.index.unitsWithin(scope, spans, limit),
    );
  count = (scope: IndexScope): Promise<number> =>
    this.call(
      'count',
      () => [scope],
      true,
      () => this.index.count(scope),
    );
  // A rebuild, a compaction and a scan of every row are big: the own client makes them, and every call after them.
  drop = () => this.ownIndex().drop();
  compact = () => this.ownIndex().compact();
  listPaths = () => this.ownIndex().listPaths();
  listChunks = () => this.ownIndex().listChunks();
  close = () => this.index.close();

  private fewRows(rows: IndexedChunk[]): boolean {
    return rows.length <= (this.options.maxRows ?? MAX_ROWS);
  }

  private ownIndex(): VectorIndex {
    this.own = true;
    return this.index;
  }

  /**
   * The call through the daemon while that is possible (and `small`), else through the own index; `retry` is what
   * the own index does when the daemon may have made the call already (default: the call itself).
   */
  private async call<T>(method: IndexCall['method'], args: () => unknown[], small: boolean, local: () => Promise<T>, retry = local): Promise<T> {
    if (this.own || !small) {
      this.own = true;
      return local();
    }
    const answer = await this.ask(this.options.target, 'index', { location: this.location, method, args: args() }, this.options.timeoutMs ?? TIMEOUT_MS);
    if (answer?.ok) return answer.results as T;
    this.own = true;
    return retry();
  }
}
