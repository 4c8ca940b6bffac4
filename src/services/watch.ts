// Use case: keep the index in step with the files while they are edited: file changes are debounced
// into one sync of just the changed paths (a missing path is a deletion), each sync reported.
import { MemError, RootGoneError } from '../errors.js';
import type { FileChange, WatchFiles } from './ports.js';
import { purgeLocked, type PurgeDeps, type PurgeReport } from './core/purge.js';
import { syncIndex, type ReindexReport } from './core/sync.js';

export interface WatchOptions {
  /** Quiet time after the last change before a sync starts, ms (default 100). */
  debounceMs?: number;
  /** Longest a change waits while others keep coming, ms (default 2000). */
  maxWaitMs?: number;
  /** After each sync, including the first full one. */
  onSync?: (event: WatchSyncEvent) => void;
  /** A sync that failed; its paths are retried with backoff. */
  onError?: (error: unknown, paths: string[] | 'all') => void;
  /** Quiet time after a sync that deleted rows before their text is purged from `.mem/`, ms (default 5000). */
  purgeDelayMs?: number;
  /** After each purge. */
  onPurge?: (event: WatchPurgeEvent) => void;
  /** How often the root folder's presence is checked between syncs, ms (default 5000): a root gone is an error. */
  rootCheckMs?: number;
  /** Before each sync after the first, and each purge: a throw fails it (reported by onError) before anything is written. */
  beforeWrite?: () => Promise<void>;
}

export interface WatchPurgeEvent {
  at: string;
  ms: number;
  purge: PurgeReport;
}

export interface WatchSyncEvent {
  /** ISO time the sync finished. */
  at: string;
  /** The first, full sync that catches up with edits made while nobody watched. */
  initial: boolean;
  /** The paths synced, or 'all' for a full sync. */
  paths: string[] | 'all';
  ms: number;
  report: ReindexReport;
}

export interface Watching {
  /** Stops watching; changes still pending are synced first unless the last sync failed. */
  close(): Promise<void>;
}

const RETRY_MAX_MS = 30_000;
const ROOT_CHECK_MS = 5_000;

/** Watches the root; resolves once the watcher runs and the first full sync is done. */
export async function watchMemory(deps: PurgeDeps & { watchFiles?: WatchFiles }, options: WatchOptions = {}): Promise<Watching> {
  if (!deps.watchFiles) throw new MemError('this memory was opened without a file watcher');
  const debounceMs = options.debounceMs ?? 100;
  const maxWaitMs = options.maxWaitMs ?? 2_000;
  const pending = new Set<string>();
  let full = false;
  let firstChangeAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let failures = 0;
  let closed = false;
  let starting = true;

  // What the watch has reported for each path (a full sync's scan names every skipped symlink): a sync of named paths
  // adds why it skipped one of them (stat only says there is no file there) unless that was said already.
  const reported = new Map<string, string>();
  const skipsOf = async (paths: string[]) => {
    const skips: { path: string; line: number; message: string }[] = [];
    for (const path of paths) {
      const reason = (await deps.files.skipReason?.(path)) ?? null;
      if (reason === null) reported.delete(path);
      else if (reported.get(path) !== reason) skips.push({ path, line: 0, message: reason });
    }
    return skips;
  };

  // A root deleted or moved away under the watch: a sync would create `.mem/` again at the old path (an empty folder
  // that looks like a root), so none runs; the error goes to onError (`mem watch` stops on it), at the next sync or
  // within rootCheckMs when no change arrives (a moved folder's watch may report nothing).
  const rootGone = async () => deps.files.rootExists !== undefined && !(await deps.files.rootExists());
  const goneError = () => new RootGoneError(`the memory root ${deps.files.root} is gone (deleted or moved away)`);

  const runSync = async (paths: string[] | 'all', initial: boolean): Promise<void> => {
    if (await rootGone()) throw goneError();
    if (!initial) await options.beforeWrite?.();
    const started = performance.now();
    const report = await syncIndex(deps, paths === 'all' ? {} : { only: paths });
    if (paths !== 'all') report.errors.push(...(await skipsOf(paths)));
    for (const e of report.errors) reported.set(e.path, e.message);
    options.onSync?.({ at: new Date().toISOString(), initial, paths, ms: Math.round(performance.now() - started), report });
    if (report.deleted > 0 || (initial && (await deps.residue.deletedSinceLastPurge()))) schedulePurge();
  };

  const sync = async (paths: string[] | 'all'): Promise<void> => {
    try {
      await runSync(paths, false);
      failures = 0;
    } catch (err) {
      failures++;
      // Nothing is lost: the paths go back into the queue for the next try.
      if (paths === 'all') full = true;
      else for (const p of paths) pending.add(p);
      options.onError?.(err, paths);
    }
  };

  // Text a person deleted or edited away is purged once edits pause, so watching is as thorough as `mem gc`
  // without a rebuild from cached vectors (Milvus Lite) after every keystroke-save.
  const purgeDelayMs = options.purgeDelayMs ?? 5_000;
  let purgeTimer: NodeJS.Timeout | undefined;
  let purging: Promise<void> | undefined;
  const runPurge = async (): Promise<void> => {
    purgeTimer = undefined;
    // A sync running or queued first: the purge waits for the quiet after it.
    if (running || timer) return schedulePurge();
    if (await rootGone()) return; // nothing left to purge from, and the purge's lock would create `.mem/` again
    const started = performance.now();
    try {
      await options.beforeWrite?.();
      const purge = await deps.lock.run(() => purgeLocked(deps));
      options.onPurge?.({ at: new Date().toISOString(), ms: Math.round(performance.now() - started), purge });
    } catch (err) {
      // The marker stays: the next purge (or `mem gc`) does it.
      options.onError?.(err, 'all');
    }
  };
  function schedulePurge(): void {
    if (closed) return;
    clearTimeout(purgeTimer);
    purgeTimer = setTimeout(() => (purging = runPurge()), purgeDelayMs);
  }

  const flush = () => {
    timer = undefined;
    if (running || (!full && pending.size === 0)) return;
    const paths = full ? 'all' : [...pending].sort();
    full = false;
    pending.clear();
    firstChangeAt = 0;
    running = sync(paths).then(() => {
      running = undefined;
      if (!closed && (full || pending.size > 0)) schedule();
    });
  };

  function schedule(): void {
    if (closed) return;
    clearTimeout(timer);
    const now = Date.now();
    if (firstChangeAt === 0) firstChangeAt = now;
    // After failures, back off (1 s, 2 s, ... 30 s) instead of hammering a server that is down.
    const wait = failures > 0 ? Math.min(RETRY_MAX_MS, 1_000 * 2 ** (failures - 1)) : Math.max(0, Math.min(debounceMs, firstChangeAt + maxWaitMs - now));
    timer = setTimeout(flush, wait);
  }

  const onChange = (change: FileChange) => {
    if (change.kind === 'rescan') full = true;
    else pending.add(change.path);
    // While a sync runs (or the first one), its end schedules the next one.
    if (!running && !starting) schedule();
  };

  // Watch first, then sync everything: an edit made during the first sync is not missed.
  const watcher = await deps.watchFiles(onChange);
  try {
    await runSync('all', true);
  } catch (err) {
    closed = true;
    await watcher.close();
    throw err;
  }
  starting = false;
  if (full || pending.size > 0) schedule();
  let goneSaid = false;
  const rootCheck = setInterval(() => {
    if (running || timer || goneSaid) return;
    void rootGone().then((gone) => {
      if (!gone || goneSaid || closed) return;
      goneSaid = true;
      options.onError?.(goneError(), 'all');
    });
  }, options.rootCheckMs ?? ROOT_CHECK_MS);

  return {
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      clearTimeout(purgeTimer);
      clearInterval(rootCheck);
      await watcher.close();
      await running;
      await purging;
      if (failures === 0 && (full || pending.size > 0)) {
        await sync(full ? 'all' : [...pending].sort());
      }
    },
  };
}
