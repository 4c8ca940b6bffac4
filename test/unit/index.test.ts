// The library API (src/index.ts) offers what a user sets: the ranking's tuning knobs and memdir's own wiring hooks are
// not part of SearchInput or OpenOptions (the type errors below are checked by `npm run typecheck`), nor exported.
import { describe, expect, it } from 'vitest';

import * as library from '../../src/index.js';
import type { OpenOptions, SearchInput } from '../../src/index.js';

describe('the library API', () => {
  it('SearchInput and OpenOptions refuse the benchmark-only settings', () => {
    // @ts-expect-error the window share is a ranking knob (RankingTuning), not a user's setting
    const tuned: SearchInput = { query: 'x', user: 'alice', windows: 0 };
    // @ts-expect-error the date share likewise
    const dated: SearchInput = { query: 'x', user: 'alice', dates: 0 };
    // @ts-expect-error wrapping the index is memdir's own wiring (the daemon, the benchmarks)
    const wrapped: OpenOptions = { wrapIndex: undefined };
    // @ts-expect-error handing out the wired dependencies likewise
    const wired: OpenOptions = { onDeps: () => undefined };
    const plain: SearchInput = { query: 'x', user: 'alice', k: 3, mode: 'bm25', fusion: 'rrf', rescore: false, unit: 'chunk', track: false };
    expect([tuned, dated, wrapped, wired, plain]).toHaveLength(5);
  });

  it('exports openMemory and loadConfig, and neither the search use case nor the internal door', () => {
    expect(typeof library.openMemory).toBe('function');
    expect(typeof library.loadConfig).toBe('function');
    expect(Object.keys(library)).not.toContain('searchMemories');
    expect(Object.keys(library)).not.toContain('MilvusIndex');
  });
});
