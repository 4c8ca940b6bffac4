// Covers searchMemories with history: a memory past its `expires:` (its file still says `status: active`, as until
// `mem gc` marks it) comes back marked `expired`, as `mem status`, `mem list` and `mem show` count it.
import { describe, expect, it } from 'vitest';

import { syncIndex } from '../../../src/services/core/sync.js';
import { searchMemories } from '../../../src/services/search.js';
import { InMemoryIndex } from '../../support/fakes.js';
import { tempRoot } from '../../support/temp-root.js';
import { unitDeps } from '../../support/unit-deps.js';

const FILES = {
  'alice/semantic/permit.md': '---\nexpires: 2026-01-01T00:00:00Z\n---\nAlice had a parking permit for the harbour.\n',
  'alice/semantic/boat.md': 'Alice keeps a boat in the harbour.\n',
};

async function searchAt(at: Date, history: boolean) {
  const root = await tempRoot(FILES);
  const deps = unitDeps(root, { index: new InMemoryIndex() });
  await syncIndex(deps);
  return searchMemories(deps, { query: 'harbour permit', user: 'alice', mode: 'bm25', track: false, history, at });
}

describe('search with history', () => {
  it('marks a memory whose expiry has passed as expired, though its file still says active', async () => {
    const results = await searchAt(new Date('2026-12-02T00:00:00Z'), true);
    const permit = results.find((r) => r.path === 'alice/semantic/permit.md');
    expect(permit?.status).toBe('expired');
    expect(permit?.expires).toBe('2026-01-01T00:00:00.000Z');
    expect(results.find((r) => r.path === 'alice/semantic/boat.md')?.status).toBe('active');
  });

  it('leaves it active when the search is made before its expiry', async () => {
    const results = await searchAt(new Date('2025-12-31T00:00:00Z'), true);
    expect(results.find((r) => r.path === 'alice/semantic/permit.md')?.status).toBe('active');
  });

  it('never returns it without history', async () => {
    const results = await searchAt(new Date('2026-12-02T00:00:00Z'), false);
    expect(results.map((r) => r.path)).toEqual(['alice/semantic/boat.md']);
  });
});
