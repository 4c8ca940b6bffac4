// Caps V8's young generation in a long `mem reindex`: left alone, its two semi-spaces grow to 16 MB each within seconds.
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/**
 * The young generation's size (both semi-spaces) a full index keeps: 8 MB where V8 grows it to 32 MB while the Milvus
 * client loads, before the scan. At 10,000 files the peak resident memory fell by ~20 MiB for ~4× the scavenges;
 * at 2 MB the batches held across an insert were promoted and the scavenges were 19×.
 * `--max-semi-space-size` is read only when the process starts; the growth factor is read at every growth.
 */
export const YOUNG_GENERATION_CAP_BYTES = 8 * 1024 * 1024;

/** What the cap needs of V8 (a fake in unit tests: the flag is process-wide). */
export interface YoungHeap {
  /** Committed bytes of the young generation. */
  size(): number;
  setGrowthFactor(factor: number): void;
  /** Calls `check` after each collection. */
  afterCollections(check: () => void): void;
}

const v8Heap: YoungHeap = {
  size: () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0,
  setGrowthFactor: (factor) => setFlagsFromString(`--semi-space-growth-factor=${factor}`),
  afterCollections(check) {
    new PerformanceObserver(check).observe({ entryTypes: ['gc'] });
  },
};

/**
 * Lets the young generation grow to `cap` in one step, then no further; watched after every collection for the rest
 * of the command, because V8 also shrinks it (to 1 MB, after a quiet spell such as a rebuild's drop), and with no
 * growth at all it would stay there: the batches held across an insert would then be promoted, 19× the scavenges.
 */
export function capYoungGeneration(cap = YOUNG_GENERATION_CAP_BYTES, heap: YoungHeap = v8Heap): void {
  let factor = 0;
  const steer = () => {
    const size = heap.size();
    const next = size >= cap ? 1 : Math.max(2, Math.round(cap / Math.max(size, 1)));
    if (next !== factor) heap.setGrowthFactor((factor = next));
  };
  steer();
  heap.afterCollections(steer);
}
