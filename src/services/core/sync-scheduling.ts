// How a sync schedules its I/O around the plan (sync-plan.ts): the index's client loaded only when it is needed and
// while other work runs, requests given a head start before a blocking step, a small write's flush not waited for.
import type { EmbeddingModelIdentity, IndexOpener, IndexWriter } from '../ports.js';

/** `fn`, called at most once (undefined stays undefined). */
export function once(fn: (() => void) | undefined): (() => void) | undefined {
  if (!fn) return undefined;
  let called = false;
  return () => {
    if (called) return;
    called = true;
    fn();
  };
}

/**
 * The index, opened (collection created or its model checked) on first use: a sync with nothing to write never asks it.
 * `open` starts that same opening early (see writeBatch); it is done once, whoever asks first.
 */
export function openedOnFirstUse<I extends IndexOpener>(index: I, model: EmbeddingModelIdentity, onOpen: (instance: string | undefined) => Promise<void>): I {
  let opened: Promise<string | undefined> | undefined;
  const open = () => (opened ??= index.open(model).then(async (instance) => (await onOpen(instance), instance)));
  return new Proxy(index, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => Promise<unknown>;
      if (prop === 'open') return open;
      if (prop === 'close' || prop === 'drop') return method.bind(target);
      return async (...args: unknown[]) => {
        await open();
        return method.apply(target, args);
      };
    },
  });
}

// A write of at most this many rows waits at most FLUSH_WAIT_MS for its flush (see boundedFlush).
export const SMALL_WRITE_ROWS = 256;
const FLUSH_WAIT_MS = 250;

/**
 * The flush after a small write: sent, then waited for at most FLUSH_WAIT_MS (the sync saves its manifest meanwhile),
 * its failure ignored. Unflushed rows are searched unindexed (3,000 of them cost ~900 ms a search), so
 * the flush is always sent; but a small write does not need it to be seen (reads are Strong and Milvus Lite
 * searches its memtable; its WAL keeps the rows across a restart), and Milvus Lite makes a flush wait while its
 * background compaction holds the collection's lock (seconds after a big write). The server finishes a flush it has
 * received even once this process has closed its connection (its handler does not watch for cancellation), so this
 * one call may outlive the command and its lock: it writes no row.
 */
export function boundedFlush(index: Pick<IndexWriter, 'flush'>): Promise<void> {
  const flushed = index.flush().catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, FLUSH_WAIT_MS)));
  return Promise.race([flushed, waited]).finally(() => clearTimeout(timer));
}

// Enough for a request to a local server to be on its way (5 ms was not, under load; 30 ms was).
const HEAD_START_MS = 50;

/** Resolves once `work` has had HEAD_START_MS to send its requests (or has ended, either way). */
export function headStart(work: Promise<unknown>): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, HEAD_START_MS);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    work.then(done, done);
  });
}
