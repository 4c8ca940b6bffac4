// Covers searchMemories asking for the query's vector while it checks the index: the model starts before the
// manifest's check has answered, the results are those of a search that waits, and a failed check is still the
// search's error (the vector's failure, never awaited then, is not left unhandled).
import { describe, expect, it } from 'vitest';

import { syncIndex } from '../../../src/services/core/sync.js';
import { searchMemories, type SearchInput } from '../../../src/services/search.js';
import { HashEmbedder, InMemoryIndex } from '../../support/fakes.js';
import { tempRoot } from '../../support/temp-root.js';
import { unitDeps } from '../../support/unit-deps.js';

const FILES = {
  'alice/semantic/key.md': 'The spare key of the office is in the top drawer.\n',
  'alice/episodic/trip.md': 'We drove to the coast and the car key was lost on the beach.\n',
  'alice/semantic/tea.md': 'Alice drinks green tea every morning.\n',
};
const INPUT: SearchInput = { query: 'where is the key', user: 'alice', track: false };

async function indexed() {
  const root = await tempRoot(FILES);
  const deps = unitDeps(root, { index: new InMemoryIndex() });
  await syncIndex(deps);
  return deps;
}

describe('the query vector asked ahead of the index check', () => {
  it('asks the model before the manifest check answers, and ranks as a search that waits', async () => {
    const deps = await indexed();
    const expected = await searchMemories(deps, INPUT);
    const order: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const exists = deps.manifest.exists.bind(deps.manifest);
    deps.manifest.exists = async () => {
      order.push('check');
      await gate;
      order.push('checked');
      return exists();
    };
    const embedder = new HashEmbedder(8);
    deps.embedder = {
      identity: embedder.identity,
      embedDocuments: (texts) => embedder.embedDocuments(texts),
      embedQuery: (text) => (order.push('embed'), embedder.embedQuery(text)),
    };
    const searching = searchMemories(deps, INPUT);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual(['check', 'embed']);
    open();
    const results = await searching;
    expect(results.map((r) => r.path)).toEqual(expected.map((r) => r.path));
    expect(results).toEqual(expected);
  });

  it('fails with the index check’s error when both the check and the model fail', async () => {
    const deps = await indexed();
    deps.manifest.exists = async () => {
      throw new Error('manifest unreadable');
    };
    deps.embedder = { ...deps.embedder, identity: deps.embedder.identity, embedQuery: async () => Promise.reject(new Error('model down')) };
    await expect(searchMemories(deps, INPUT)).rejects.toThrow('manifest unreadable');
    // A rejection left unhandled would fail this file once the event loop turns.
    await new Promise((resolve) => setTimeout(resolve, 20));
  });
});
