// Covers reclaimingHeap: the progress it wraps sees every call, and garbage (heap or ArrayBuffers) grown past the threshold during a sync, or after its scan, is collected
// (without its young-generation cap: V8 flags are process-wide, so young-generation.test.ts covers the cap with a fake heap).
import { describe, expect, it, vi } from 'vitest';

import { growthThreshold, reclaimingHeap } from '../../../src/cli/heap-reclaim.js';
import type { Progress } from '../../../src/services/ports.js';

/** Allocates about 10 MB (arrays this large live outside the young generation) and drops it: garbage only a full collection frees. */
function dropGarbage(): void {
  const garbage = Array.from({ length: 12 }, () => new Array<number>(100_000).fill(1.5));
  expect(garbage.length).toBe(12);
}

describe('reclaimingHeap', () => {
  it('collects after 16 MB of growth, or a quarter of the live heap once that is larger: collections cost O(live), so O(n) in all', () => {
    const MB = 1024 * 1024;
    expect(growthThreshold(0)).toBe(16 * MB);
    expect(growthThreshold(60 * MB)).toBe(16 * MB);
    expect(growthThreshold(64 * MB)).toBe(16 * MB);
    expect(growthThreshold(100 * MB)).toBe(25 * MB);
    // Collections per byte allocated times the cost of each (proportional to the live heap): bounded whatever the live heap.
    for (const live of [64, 128, 256, 1024]) expect((live * MB) / growthThreshold(live * MB)).toBeLessThanOrEqual(4);
  });

  it('passes start, ticks and stop through', () => {
    const calls: string[] = [];
    const inner: Progress = { start: (t, l) => calls.push(`start ${t} ${l}`), tick: (n = 1) => calls.push(`tick ${n}`), stop: () => calls.push('stop') };
    const p = reclaimingHeap(inner, null);
    p.start(3, 'indexing');
    p.tick();
    p.tick(2);
    p.stop();
    p.end();
    expect(calls).toEqual(['start 3 indexing', 'tick 1', 'tick 2', 'stop']);
  });

  it('collects the garbage of a sync once the heap has grown by 16 MB since its start', () => {
    const p = reclaimingHeap({ start() {}, tick() {}, stop() {} }, null);
    p.start(1000, 'indexing');
    // About 40 MB of arrays that die at once, as a written batch's rows do.
    let garbage: number[][] | null = Array.from({ length: 50 }, () => new Array<number>(100_000).fill(1.5));
    expect(garbage.length).toBe(50);
    garbage = null;
    const grown = process.memoryUsage().heapUsed;
    p.tick(100);
    expect(process.memoryUsage().heapUsed).toBeLessThan(grown - 30 * 1024 * 1024);
    p.end();
  });

  it("counts ArrayBuffers outside the heap as growth too, as an insert's vectors and request are", async () => {
    const p = reclaimingHeap({ start() {}, tick() {}, stop() {} }, null);
    p.start(1000, 'indexing');
    // About 40 MB of buffers and almost no heap: the heap alone never passes the threshold.
    let garbage: Float32Array[] | null = Array.from({ length: 40 }, () => new Float32Array(256 * 1024));
    expect(garbage.length).toBe(40);
    garbage = null;
    const held = process.memoryUsage().arrayBuffers;
    p.tick(100);
    // V8 frees a collection's dead buffers on a background thread, just after it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(process.memoryUsage().arrayBuffers).toBeLessThan(held - 30 * 1024 * 1024);
    p.end();
  });

  it('also looks at the heap in time, between ticks and after the scan, until the command ends', async () => {
    const p = reclaimingHeap({ start() {}, tick() {}, stop() {} }, null);
    p.start(1000, 'indexing');
    p.stop();
    // About 40 MB that dies after the scan (the links, the manifest's save), with no tick to look at the heap.
    let garbage: number[][] | null = Array.from({ length: 50 }, () => new Array<number>(100_000).fill(1.5));
    expect(garbage.length).toBe(50);
    garbage = null;
    const grown = process.memoryUsage().heapUsed;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(process.memoryUsage().heapUsed).toBeLessThan(grown - 30 * 1024 * 1024);
    p.end();
  });

  it('collects at the end of the scan of a sync it collected during (a full index), however little the heap grew since', () => {
    const p = reclaimingHeap({ start() {}, tick() {}, stop() {} }, null);
    p.start(1000, 'indexing');
    // About 40 MB, collected at the next tick: the sync writes batches.
    let batch: number[][] | null = Array.from({ length: 50 }, () => new Array<number>(100_000).fill(1.5));
    expect(batch.length).toBe(50);
    batch = null;
    p.tick(100);
    // Then about 10 MB: under the growth threshold, so no tick collects it.
    dropGarbage();
    p.tick(10);
    const grown = process.memoryUsage().heapUsed;
    p.stop();
    expect(process.memoryUsage().heapUsed).toBeLessThan(grown - 7 * 1024 * 1024);
    p.end();
  });

  it('does not collect at the end of the scan of a sync it never collected during (a no-op, an edit), under the threshold', () => {
    const p = reclaimingHeap({ start() {}, tick() {}, stop() {} }, null);
    p.start(10, 'indexing');
    // About 10 MB of garbage: under the threshold. A collection would free it; the sync's end must not pay for one.
    dropGarbage();
    p.tick(10);
    const grown = process.memoryUsage().heapUsed;
    p.stop();
    // A full collection would have freed the 10 MB at once (a minor one does not: arrays this large live outside the
    // young generation), as the test above shows for a sync that was collected during its scan.
    expect(process.memoryUsage().heapUsed).toBeGreaterThan(grown - 7 * 1024 * 1024);
    p.end();
  });

  it("reads the heap's size at most every 20 ms from ticks: a loop over 50,000 unchanged files looks a few times, not 500", () => {
    const p = reclaimingHeap({ start() {}, tick() {}, stop() {} }, null);
    let now = 1_000_000;
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => now);
    const reads = vi.spyOn(process, 'memoryUsage');
    try {
      p.start(50_000, 'indexing');
      reads.mockClear();
      // 50,000 skipped files ticked one by one within 10 ms: the first 100 look, the rest are held back.
      for (let i = 0; i < 50_000; i++) {
        if (i % 5_000 === 0) now += 1;
        p.tick();
      }
      expect(reads).toHaveBeenCalledTimes(1);
      // 20 ms later the next 100 files look again, as a full index's batches, seconds apart, always do.
      now += 20;
      p.tick(100);
      expect(reads).toHaveBeenCalledTimes(2);
      p.tick(100);
      expect(reads).toHaveBeenCalledTimes(2);
    } finally {
      p.end();
      clock.mockRestore();
      reads.mockRestore();
    }
  });
});
