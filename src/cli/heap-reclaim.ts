// Keeps a long `mem reindex` process small: a full collection whenever its heap has grown by a set amount since the last.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import type { Progress } from '../services/ports.js';
import { capYoungGeneration } from './young-generation.js';

/**
 * A full index allocates a batch of rows (texts, vectors, the Milvus SDK's copies) every fraction of a second and
 * holds each across a network call, so V8 promotes them to its old space and lets that grow to several times
 * the live heap before it collects: a full index of 10,000 files peaks at ~270 MiB resident without this, ~170 MiB
 * with it (`npm run bench:heap`, docs/decisions/heap-steering.md). Its heap limit cannot be set once the process runs;
 * a full collection when the heap has grown by GROWTH_BYTES keeps it near the live size. A no-op sync allocates little
 * and is never collected this way.
 * 16 MB (was 24) since an insert no longer leaves ~25 MB of the SDK's log strings behind: V8 keeps the heap it grew
 * into between collections committed, and at 50,000 files that headroom was part of the peak.
 */
const GROWTH_BYTES = 16 * 1024 * 1024;
/**
 * And at least this share of what was in use after the last collection. A full collection costs time in proportion to
 * the live heap, which grows with the corpus (the manifest's entries, the scan's list): at a fixed 16 MB, the number of
 * collections grows with the files and the cost of each with them too, O(n²) in total; at a share of the live heap their
 * total cost is proportional to what the sync allocates, O(n).
 * At 10,000 files (~60 MB in use) the threshold stays 16 MB; at 50,000 it ends near 25 MB.
 */
const GROWTH_SHARE = 0.25;

/** The growth since the last collection at which the next one runs, given what was in use after that one. */
export function growthThreshold(inUseAfterCollection: number): number {
  return Math.max(GROWTH_BYTES, GROWTH_SHARE * inUseAfterCollection);
}
/**
 * What grows: the heap and the ArrayBuffers outside it, which a collection frees too. An insert's vectors (one
 * Float32Array of 500 rows, since the SDK patch) and its encoded request are buffers, not heap: counted by heap alone,
 * they piled up between collections and malloc kept the space they had taken.
 */
const inUse = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
/** How often (in files) the heap is looked at: reading its size costs microseconds. */
const CHECK_EVERY_FILES = 100;
/**
 * And at most this often by ticks. Reading the size reads /proc/self/stat too (process.memoryUsage has no call
 * without the RSS), which stalled for up to 155 ms while the worker thread loaded the index's client: a one-file edit
 * at 50,000 files ticks 50,000 skipped files in a fraction of a second, and its 500 looks took 281 ms (a no-op's 22 ms). A full index ticks once per written batch, seconds apart: never held back.
 */
const CHECK_MIN_MS = 20;
/**
 * And how often in time, from the scan's start to the command's end: a batch's rows are ticked only once written,
 * so between two ticks the heap grew by a whole batch past the threshold (peaks ~60 MB over the live heap at 50,000
 * files), and after the scan (links, the manifest's save, the duplicate check over every entry) nothing ticks at all.
 */
const CHECK_EVERY_MS = 200;

/** A Progress that also watches the heap; `end` stops the watching (the command is over). */
export interface ReclaimingProgress extends Progress {
  end(): void;
}

export function reclaimingHeap(progress: Progress, youngGenerationCap: (() => void) | null = capYoungGeneration): ReclaimingProgress {
  // Before the client loads: the young generation grows in the command's first seconds.
  youngGenerationCap?.();
  const collect = fullCollection();
  if (!collect) return { ...progress, start: progress.start.bind(progress), tick: progress.tick.bind(progress), stop: progress.stop.bind(progress), end() {} };
  let files = 0;
  /** When a tick last looked at the heap (0: never). */
  let lookedAt = 0;
  let floor = 0;
  let timer: NodeJS.Timeout | null = null;
  let threshold = GROWTH_BYTES;
  /** Collections made since the sync started (see stop). */
  let collections = 0;
  const settle = () => {
    floor = inUse();
    threshold = growthThreshold(floor);
  };
  const check = () => {
    if (inUse() - floor < threshold) return;
    collect();
    collections++;
    settle();
  };
  return {
    start(total, label) {
      // Measured from here: the manifest and the scan, loaded before, are live, not garbage.
      settle();
      collections = 0;
      timer ??= setInterval(check, CHECK_EVERY_MS).unref();
      progress.start(total, label);
    },
    stop() {
      progress.stop();
      // What follows (links, the manifest's save: a JSON string of all entries at once) starts from the live heap, in a
      // sync that wrote enough to be collected while it ran (a full index). One that was not (a no-op, a one-file edit)
      // is collected only past the threshold: at 50,000 files a collection costs it 50-150 ms.
      if (collections > 0) {
        collect();
        settle();
      } else {
        // And what it loaded meanwhile (the client, the embedder's SDK) is live: the check after the loop counts from here.
        check();
        settle();
      }
      // And is collected at 16 MB again: it lasts seconds, so its collections cost little, but at 50,000 files the
      // larger threshold let the final save's garbage raise the peak.
      threshold = GROWTH_BYTES;
    },
    tick(n = 1) {
      progress.tick(n);
      files += n;
      if (files < CHECK_EVERY_FILES) return;
      files = 0;
      const now = Date.now();
      if (now - lookedAt < CHECK_MIN_MS) return;
      lookedAt = now;
      check();
    },
    end() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}

/** V8's full collection, exposed at run time (the `--expose-gc` flag applies to contexts made after it is set). */
function fullCollection(): (() => void) | null {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    return null;
  }
}
