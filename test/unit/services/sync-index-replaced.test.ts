// Covers an index dropped and created anew behind memdir's back (the servers' data deleted, a collection dropped by
// hand): the manifest records the collection it describes, so a sync or a search notices the empty one and indexes
// every file again from the vector cache, instead of skipping "unchanged" files and finding nothing.
import { describe, expect, it } from 'vitest';

import { syncIndex } from '../../../src/services/core/sync.js';
import { searchMemories } from '../../../src/services/search.js';
import type { EmbeddingModelIdentity, OpenOptions } from '../../../src/services/ports.js';
import { InMemoryIndex } from '../../support/fakes.js';
import { edit, setup } from '../../support/sync-fixture.js';

const TREE = {
  'alice/semantic/bike.md': 'The blue bicycle is kept in the garden shed.\n',
  'alice/semantic/tea.md': 'Alice drinks green tea every morning.\n',
};

/** The same root, its index replaced by an empty collection of the same name (a new instance id). */
async function replacedIndex() {
  const s = await setup(TREE);
  await syncIndex(s.deps);
  const fresh = new InMemoryIndex();
  expect(fresh.instance).not.toBe(s.index.instance);
  return { ...s, fresh, deps: { ...s.deps, index: fresh } };
}

describe('an index created anew since the last sync', () => {
  it('the first sync records the collection it indexed into', async () => {
    const s = await setup(TREE);
    await syncIndex(s.deps);
    expect(await s.deps.manifest.indexInstance()).toBe(s.index.instance);
  });

  it('a sync that writes notices it and indexes every file again, vectors from the cache', async () => {
    const { root, fresh, deps, embedder } = await replacedIndex();
    const embeddedBefore = embedder.embeddedTexts.length;
    await edit(root, 'alice/semantic/tea.md', 'Alice drinks green tea every morning, with honey.\n');
    const report = await syncIndex(deps);
    expect(report.indexReplaced).toBe(true);
    expect(fresh.rowsOf('alice/semantic/bike.md')).toHaveLength(1);
    expect(fresh.rowsOf('alice/semantic/tea.md').map((r) => r.content)).toEqual(['Alice drinks green tea every morning, with honey.']);
    // Only the edited text is new: the bicycle's vector came from the cache.
    expect(embedder.embeddedTexts.slice(embeddedBefore)).toEqual(['Alice drinks green tea every morning, with honey.']);
    // The report says so: the first attempt embedded it (before the open found the new collection), the retry reused it.
    expect(report).toMatchObject({ embedded: 1, upserted: 2 });
    expect(await deps.manifest.indexInstance()).toBe(fresh.instance);
    // Bound again: the next sync is an ordinary one.
    expect((await syncIndex(deps)).indexReplaced).toBeUndefined();
  });

  it('a search notices it and finds the memory again', async () => {
    const { fresh, deps } = await replacedIndex();
    const results = await searchMemories(deps, { query: 'bicycle shed', user: 'alice', mode: 'bm25', track: false });
    expect(results.map((r) => r.path)).toContain('alice/semantic/bike.md');
    expect(fresh.rowsOf('alice/semantic/bike.md')).toHaveLength(1);
  });

  it('the same collection, reopened, is trusted: nothing is indexed again', async () => {
    const s = await setup(TREE);
    await syncIndex(s.deps);
    const upserts = s.index.calls.upsert + s.index.calls.insert;
    await searchMemories(s.deps, { query: 'bicycle shed', user: 'alice', mode: 'bm25', track: false });
    await edit(s.root, 'alice/semantic/tea.md', 'Alice drinks black tea now.\n');
    const report = await syncIndex(s.deps);
    expect(report.indexReplaced).toBeUndefined();
    expect(report.skipped).toBe(1);
    expect(s.index.calls.upsert + s.index.calls.insert).toBe(upserts + 1);
  });

  it('an index opened before another process rebuilt the collection is asked again, not taken for a replaced one', async () => {
    const s = await setup(TREE);
    await syncIndex(s.deps);
    // Another process (a purge) rebuilds the collection and binds the manifest to the new instance; this one's
    // index still remembers the id it read when it opened, as MilvusIndex does until asked to recheck.
    const remembered = s.index.instance;
    const stale = new Proxy(s.index, {
      get(target, prop, receiver) {
        if (prop !== 'open') return Reflect.get(target, prop, receiver);
        return async (model: EmbeddingModelIdentity, options?: OpenOptions) => {
          const now = await target.open(model);
          return options?.recheck ? now : remembered;
        };
      },
    });
    await syncIndex({ ...s.deps, index: s.index }, { rebuild: true });
    expect(await s.deps.manifest.indexInstance()).not.toBe(remembered);
    const upserts = s.index.calls.upsert + s.index.calls.insert;
    await edit(s.root, 'alice/semantic/tea.md', 'Alice drinks black tea now.\n');
    const report = await syncIndex({ ...s.deps, index: stale });
    expect(report.indexReplaced).toBeUndefined();
    expect(report).toMatchObject({ upserted: 1, skipped: 1 });
    expect(s.index.calls.upsert + s.index.calls.insert).toBe(upserts + 1);
    expect(await s.deps.manifest.indexInstance()).toBe(s.index.instance);
    // A search through the stale index does not index anything again either.
    await searchMemories({ ...s.deps, index: stale }, { query: 'black tea', user: 'alice', mode: 'bm25', track: false });
    expect(s.index.calls.upsert + s.index.calls.insert).toBe(upserts + 1);
  });
});
