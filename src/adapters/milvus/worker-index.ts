// The index through a worker thread that loads the Milvus SDK while this thread reads the manifest, parses and embeds.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

import { IndexUnavailableError, ModelMismatchError } from '../../errors.js';
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
import type { MilvusIndexOptions } from './milvus-index.js';
import type { WorkerMethod, WorkerReply, WorkerRequest } from './worker-protocol.js';

/** A started worker thread, as WorkerIndex uses it (tests pass a fake). */
export interface IndexThread {
  post(request: WorkerRequest): void;
  onReply(listener: (reply: WorkerReply) => void): void;
  /** Called once when the thread stops or fails (its pending calls are then made on this thread). */
  onExit(listener: () => void): void;
  /** Whether the process waits for the thread: only while a call is pending (an idle thread never holds the exit). */
  hold(held: boolean): void;
  terminate(): Promise<void>;
}

export interface WorkerIndexOptions {
  /** Starts the thread, or returns null when it cannot run (then every call is made on this thread). */
  start: () => IndexThread | null;
  /** Rows a call may carry to the thread (default 256): a bigger call, and every call after it, runs on this thread. */
  maxRows?: number;
  /** How long calls may wait for the thread's next answer (default DEADLINE_MS): then the thread is given up. */
  deadlineMs?: number;
  /**
   * Points the own index at the server running now, if it is another than the one the thread was started for (the
   * shared Milvus Lite restarted on another port): true then, and the thread's calls are made on this thread instead.
   */
  reconnect?: () => Promise<boolean>;
}

const MAX_ROWS = 256;
/**
 * Far above any one answer of a healthy server (each SDK call has its own 60 s deadline, the thread answers after every
 * call, and its longest, an open that waits for a big collection's load, takes tens of seconds at 50,000 files), yet a
 * bound: a thread left talking to a server that went away must not hold the command for good.
 */
const DEADLINE_MS = 300_000;
const MAX_IDS = 4_096;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  /** What this thread does instead if the worker stops before it answers (an insert becomes an upsert). */
  fallback: () => Promise<unknown>;
}

/**
 * Loading the Milvus SDK and building its client costs a `mem` process ~0.6 s of CPU, and a one-paragraph edit paid it after the manifest's load and the scan, which a no-op pays too: on one thread
 * the two add up. `start` (called through SyncDeps.prepareIndex once the sync knows it will write: a file modified
 * since the manifest's last save, or one that differs from its entry; a no-op never calls it)
 * loads the SDK and opens the collection in a worker thread, on the other core, while this thread reads the manifest,
 * parses and embeds; the sync's calls then go to that worker, in order. A big call (a full index's batches), a scan
 * of every row, a drop, and every call after them, run on this thread's own index instead, once the worker's calls
 * are over: a full index holds no second heap. A worker that fails or stops has its unanswered calls made again by
 * the own index (the same calls, idempotent; an insert as an upsert). Without `start`, this is the own index.
 */
export class WorkerIndex implements VectorIndex {
  readonly location: string;
  private thread: IndexThread | null = null;
  private started = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** The model the index was opened for: the own index is opened with it before it takes over. */
  private model: EmbeddingModelIdentity | undefined;
  /** Resolves once the own index may take calls (the worker's calls are over, and it is open if the worker's was). */
  private ownReady: Promise<void> = Promise.resolve();
  /** The answers still awaited from the worker (or, if it stopped, from the own index instead). */
  private readonly answers = new Set<Promise<unknown>>();
  /** Armed while calls wait for the thread, again at each answer: fires when it has said nothing for the deadline. */
  private silence: NodeJS.Timeout | undefined;

  constructor(
    private readonly index: VectorIndex,
    private readonly options: WorkerIndexOptions,
  ) {
    this.location = index.location;
  }

  /** Whether calls go to the worker thread (for tests). */
  get throughWorker(): boolean {
    return this.thread !== null;
  }

  /** Starts the worker and opens the index in it for `model`; its failure is the sync's own open's to report (made again). */
  start(model: EmbeddingModelIdentity): void {
    if (this.started) return;
    this.started = true;
    let thread: IndexThread | null;
    try {
      thread = this.options.start();
    } catch {
      thread = null;
    }
    if (!thread) return;
    this.thread = thread;
    thread.onReply((reply) => this.settle(reply));
    thread.onExit(() => this.lost(thread));
    this.open(model).catch(() => undefined);
  }

  // `recheck` goes to whichever index answers (a purge elsewhere may have replaced the collection since the open).
  open = (model: EmbeddingModelIdentity, options?: OpenOptions): Promise<string | undefined> => {
    this.model = model;
    return this.call('open', options ? [model, options] : [model], true, () => this.index.open(model, options));
  };
  upsert = (rows: IndexedChunk[]) => this.call<void>('upsert', [rows], this.fewRows(rows), () => this.index.upsert(rows));
  insert = (rows: IndexedChunk[]) =>
    this.call<void>(
      'insert',
      [rows],
      this.fewRows(rows),
      () => this.index.insert(rows),
      () => this.index.upsert(rows),
    );
  deleteChunks = (chunkIds: string[]) => this.call<void>('deleteChunks', [chunkIds], chunkIds.length <= MAX_IDS, () => this.index.deleteChunks(chunkIds));
  deleteStale = (paths: string[], keep: string[]) =>
    this.call<void>('deleteStale', [paths, keep], paths.length + keep.length <= MAX_IDS, () => this.index.deleteStale(paths, keep));
  delete = (scope: IndexScope) => this.call<void>('delete', [scope], true, () => this.index.delete(scope));
  flush = () => this.call<void>('flush', [], true, () => this.index.flush());
  search = (request: IndexSearchRequest) => this.call<IndexHit[]>('search', [request], true, () => this.index.search(request));
  unitsWithin = (scope: IndexScope, spans: LineSpan[], limit: number) =>
    this.call<IndexHit['record'][]>('unitsWithin', [scope, spans, limit], spans.length <= MAX_IDS, () => this.index.unitsWithin(scope, spans, limit));
  count = (scope: IndexScope) => this.call<number>('count', [scope], true, () => this.index.count(scope));
  // A rebuild, a compaction and scans of every row are big: the own index makes them, and every call after them.
  drop = () => this.call<void>('drop', [], false, () => this.index.drop());
  compact = () => this.call<'compacted' | 'requested' | 'unsupported'>('compact', [], false, () => this.index.compact());
  listPaths = () => this.call<string[]>('listPaths', [], false, () => this.index.listPaths());
  listChunks = () => this.call<{ chunkId: string; path: string }[]>('listChunks', [], false, () => this.index.listChunks());

  /**
   * A call still unanswered here is the open `start` sent, which nobody awaits (the sync's calls are over): a no-op
   * does not wait for the SDK's load to end, the thread is stopped where it is.
   */
  close = async (): Promise<void> => {
    const thread = this.thread;
    this.thread = null;
    this.pending.clear();
    clearTimeout(this.silence);
    if (thread) await thread.terminate().catch(() => undefined);
    await this.ownReady.catch(() => undefined);
    await this.index.close();
  };

  private fewRows(rows: IndexedChunk[]): boolean {
    return rows.length <= (this.options.maxRows ?? MAX_ROWS);
  }

  private async call<T>(method: WorkerMethod, args: unknown[], small: boolean, own: () => Promise<T>, fallback: () => Promise<T> = own): Promise<T> {
    if (this.thread && !small) await this.leave();
    if (!this.thread) return this.ownReady.then(own);
    const thread = this.thread;
    const id = this.nextId++;
    const answer = new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, fallback });
    });
    this.answers.add(answer);
    const forget = () => void this.answers.delete(answer);
    answer.then(forget, forget);
    thread.hold(true);
    if (this.pending.size === 1) this.watch(thread);
    thread.post({ id, method, args });
    return answer;
  }

  private settle(reply: WorkerReply): void {
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    const thread = this.thread;
    // The server the thread was started for went away: if another runs now, the calls are made on it from here.
    if (!reply.ok && reply.error.kind === 'unavailable' && this.options.reconnect && thread) {
      void this.reconnectOr(thread, () => this.answer(reply, pending));
      return;
    }
    this.answer(reply, pending);
  }

  private answer(reply: WorkerReply, pending: Pending): void {
    if (!this.pending.delete(reply.id)) return;
    clearTimeout(this.silence);
    if (this.pending.size === 0) this.thread?.hold(false);
    else if (this.thread) this.watch(this.thread);
    if (reply.ok) pending.resolve(reply.result);
    else pending.reject(errorOf(reply.error));
  }

  /** Gives up the thread if it says nothing for the deadline while calls wait for it. */
  private watch(thread: IndexThread): void {
    clearTimeout(this.silence);
    const ms = this.options.deadlineMs ?? DEADLINE_MS;
    this.silence = setTimeout(() => {
      const silent = new IndexUnavailableError(
        `the index worker did not answer within ${Math.round(ms / 1000)} s (the Milvus server it was started for may have stopped or restarted); ` +
          'the memory files are unchanged: run the command again',
      );
      void this.reconnectOr(thread, () => {
        // Its calls fail; later ones go to the own index (the thread is ended: it would never answer them either).
        this.thread = null;
        const unanswered = [...this.pending.values()];
        this.pending.clear();
        for (const p of unanswered) p.reject(silent);
        void thread.terminate().catch(() => undefined);
      });
    }, ms);
  }

  /**
   * The thread's calls, and every later one, are made on this thread when the own index could be pointed at the
   * server running now (the thread is ended, as if it had stopped); otherwise `otherwise` runs.
   */
  private async reconnectOr(thread: IndexThread, otherwise: () => void): Promise<void> {
    const reconnected = this.options.reconnect ? await this.options.reconnect().catch(() => false) : false;
    if (this.thread !== thread) return; // stopped or left meanwhile: its calls are taken care of
    if (!reconnected) return otherwise();
    this.lost(thread);
    void thread.terminate().catch(() => undefined);
  }

  /** Ends the worker once its calls are answered; later calls run on the own index, opened first as the worker's was. */
  private async leave(): Promise<void> {
    const thread = this.thread!;
    // Taken off first: calls made meanwhile wait for the own index instead of joining the worker's queue.
    this.thread = null;
    this.ownReady = (async () => {
      await Promise.allSettled(this.answers);
      await thread.terminate().catch(() => undefined);
      if (this.model) await this.index.open(this.model);
    })();
    await this.ownReady;
  }

  /** The worker stopped or failed: its unanswered calls are made on this thread, in the order they were sent. */
  private lost(thread: IndexThread): void {
    const leaving = this.thread !== thread;
    this.thread = null;
    clearTimeout(this.silence);
    const unanswered = [...this.pending.entries()].sort(([a], [b]) => a - b).map(([, p]) => p);
    this.pending.clear();
    // Opened first as the worker's was (a failed open is the unanswered calls' to report: they fail the same way).
    // While the worker is being left, its calls are what the own index waits for: they do not wait for it.
    let chain: Promise<unknown> = leaving || !this.model ? Promise.resolve() : this.index.open(this.model).catch(() => undefined);
    for (const p of unanswered) {
      const made = chain.then(() => p.fallback());
      made.then(p.resolve, p.reject);
      chain = made.catch(() => undefined);
    }
    if (!leaving) this.ownReady = chain.then(() => undefined);
  }
}

/** The error a worker's call threw, as the same class on this thread. */
function errorOf(error: Extract<WorkerReply, { ok: false }>['error']): Error {
  if (error.kind === 'model') return new ModelMismatchError(error.message);
  if (error.kind === 'unavailable') return new IndexUnavailableError(error.message);
  const err = new Error(error.message);
  err.name = error.name;
  return err;
}

/** The real thread: index-worker.js beside this module (null when it is not there, e.g. run from the TypeScript sources). */
export function startIndexThread(options: MilvusIndexOptions): IndexThread | null {
  const url = new URL('./index-worker.js', import.meta.url);
  if (!existsSync(fileURLToPath(url))) return null;
  const worker = new Worker(url, { workerData: options });
  worker.unref();
  let exited = false;
  return {
    post: (request) => worker.postMessage(request),
    onReply: (listener) => worker.on('message', listener),
    onExit: (listener) => {
      const once = () => {
        if (exited) return;
        exited = true;
        listener();
      };
      worker.on('error', once);
      worker.on('exit', once);
    },
    hold: (held) => (held ? worker.ref() : worker.unref()),
    terminate: async () => {
      await worker.terminate();
    },
  };
}
