// Milvus Lite's launch spec: the allocator settings that keep its resident memory near its live data, beside the lifecycle.
import { describe, expect, it } from 'vitest';

import { milvusLiteSpec } from '../../../../src/adapters/runtime/local-servers.js';
import { IDLE_ENV, WATCH_ENV } from '../../../../src/adapters/runtime/owner-only.js';
import { serverLayout } from '../../../../src/memory/layout.js';

describe('milvusLiteSpec', () => {
  const spec = milvusLiteSpec({ dir: '/rt', python: '/rt/bin/python', bin: (n) => `/rt/bin/${n}` }, serverLayout('/home/x/.memdir'), 60_000);

  it('returns freed Arrow memory at once and keeps glibc to two arenas', () => {
    expect(spec.env).toMatchObject({ MIMALLOC_PURGE_DELAY: '0', MIMALLOC_ARENA_EAGER_COMMIT: '0', MALLOC_ARENA_MAX: '2' });
  });

  it('keeps the lifecycle settings beside them', () => {
    expect(spec.env?.[WATCH_ENV]).toBe('/home/x/.memdir/servers');
    expect(spec.env?.[IDLE_ENV]).toBe('60');
  });
});
