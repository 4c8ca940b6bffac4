// Keeps a long `mem reindex` process small: a full collection whenever its heap has grown by a set amount since the last.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import type { Progress } from '../services/ports.js';
import { capYoungGeneration } from './young-generation.js';

/**
 * A full index allocates a batch of rows (texts, vectors, the Milvus SDK's copies) every fraction of a second and
 * holds each across a network call, so V8 promotes them to its old space and lets that grow to several times
 * the live heap before it collects (docs/benchmarks.md section 12: ~60 MB live, 595 MiB resident at 10,000
 * files). Its heap limit cannot be set once the process runs; a full collection when the heap has grown by
 * GROWTH_BYTES keeps it near the live size. A no-op sync allocates little and is never collected this way.
 */
const GROWTH_BYTES = 24 * 1024 * 1024;
/** How often (in files) the heap is looked at: reading its size costs microseconds. */
const CHECK_EVERY_FILES = 100;
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
  // Before the client loads: the young generation grows in the command's first seconds (docs/benchmarks.md 30).
  youngGenerationCap?.();
  const collect = fullCollection();
  if (!collect) return { ...progress, start: progress.start.bind(progress), tick: progress.tick.bind(progress), stop: progress.stop.bind(progress), end() {} };
  let files = 0;
  let floor = 0;
  let timer: NodeJS.Timeout | null = null;
  const check = () => {
    if (process.memoryUsage().heapUsed - floor < GROWTH_BYTES) return;
    collect();
    floor = process.memoryUsage().heapUsed;
  };
  return {
    start(total, label) {
      // Measured from here: the manifest and the scan, loaded before, are live, not garbage.
      floor = process.memoryUsage().heapUsed;
      timer ??= setInterval(check, CHECK_EVERY_MS).unref();
      progress.start(total, label);
    },
    stop() {
      progress.stop();
      // What follows (links, the manifest's save: a JSON string of all entries at once) starts from the live heap.
      collect();
      floor = process.memoryUsage().heapUsed;
    },
    tick(n = 1) {
      progress.tick(n);
      files += n;
      if (files < CHECK_EVERY_FILES) return;
      files = 0;
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
