// Covers reclaimingHeap: the progress it wraps sees every call, and garbage grown past the threshold during a sync, or after its scan, is collected
// (without its young-generation cap: V8 flags are process-wide, so young-generation.test.ts covers the cap with a fake heap).
import { describe, expect, it } from 'vitest';

import { reclaimingHeap } from '../../../src/cli/heap-reclaim.js';
import type { Progress } from '../../../src/services/ports.js';

describe('reclaimingHeap', () => {
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

  it('collects the garbage of a sync once the heap has grown by 24 MB since its start', () => {
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

  it('collects at the end of the scan, before the links and the manifest save, however little the heap grew', () => {
    const p = reclaimingHeap({ start() {}, tick() {}, stop() {} }, null);
    p.start(10, 'indexing');
    // About 16 MB: under the growth threshold, so no tick collects it.
    let garbage: number[][] | null = Array.from({ length: 20 }, () => new Array<number>(100_000).fill(1.5));
    expect(garbage.length).toBe(20);
    garbage = null;
    p.tick(10);
    const grown = process.memoryUsage().heapUsed;
    p.stop();
    expect(process.memoryUsage().heapUsed).toBeLessThan(grown - 12 * 1024 * 1024);
    p.end();
  });
});
