// Covers capYoungGeneration with a fake heap (V8's growth factor is process-wide: the real one would slow other tests).
import { describe, expect, it } from 'vitest';

import { YOUNG_GENERATION_CAP_BYTES, capYoungGeneration, type YoungHeap } from '../../../src/cli/young-generation.js';

const MB = 1024 * 1024;

/** A young generation of `size` bytes that records the growth factors set and runs the checks on `collect()`. */
function fakeHeap(size: number) {
  const heap = {
    size,
    factors: [] as number[],
    checks: [] as (() => void)[],
    collect() {
      for (const check of heap.checks) check();
    },
  };
  const port: YoungHeap = { size: () => heap.size, setGrowthFactor: (f) => heap.factors.push(f), afterCollections: (c) => heap.checks.push(c) };
  return { heap, port };
}

describe('capYoungGeneration', () => {
  it('caps at 8 MB by default', () => {
    expect(YOUNG_GENERATION_CAP_BYTES).toBe(8 * MB);
  });

  it('stops the growth at once when the young generation is already at the cap or past it', () => {
    const { heap, port } = fakeHeap(16 * MB);
    capYoungGeneration(8 * MB, port);
    expect(heap.factors).toEqual([1]);
    heap.collect();
    expect(heap.factors).toEqual([1]);
  });

  it('lets a smaller one grow to the cap in one step, then stops its growth after the collection that got there', () => {
    const { heap, port } = fakeHeap(2 * MB);
    capYoungGeneration(8 * MB, port);
    expect(heap.factors).toEqual([4]);
    heap.collect(); // a scavenge that did not grow it: nothing to change
    expect(heap.factors).toEqual([4]);
    heap.size = 8 * MB;
    heap.collect();
    expect(heap.factors).toEqual([4, 1]);
  });

  it('lets it grow back to the cap after V8 shrank it', () => {
    const { heap, port } = fakeHeap(8 * MB);
    capYoungGeneration(8 * MB, port);
    heap.size = 1 * MB;
    heap.collect();
    expect(heap.factors).toEqual([1, 8]);
    heap.size = 8 * MB;
    heap.collect();
    expect(heap.factors).toEqual([1, 8, 1]);
  });

  it('never sets a factor that would not grow it', () => {
    const { heap, port } = fakeHeap(6 * MB);
    capYoungGeneration(8 * MB, port);
    expect(heap.factors).toEqual([2]);
  });
});
