// The second dense field (issue 12): unit rows carry the second model's vector of their bare text (windows
// none), each text embedded once, and a search asks the field and blends it in only when a model is configured.
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { LmdbVectorCache } from '../../../src/adapters/state/lmdb-vector-cache.js';
import { bareTextOf } from '../../../src/memory/bare.js';
import { STATE_DIR } from '../../../src/memory/layout.js';
import { secondVectorIndex } from '../../../src/services/core/second-vectors.js';
import { syncIndex } from '../../../src/services/core/sync.js';
import { searchMemories } from '../../../src/services/search.js';
import { DAY_LOG } from '../../support/day-log.js';
import { HashEmbedder, InMemoryIndex } from '../../support/fakes.js';
import { tempRoot } from '../../support/temp-root.js';
import { unitDeps } from '../../support/unit-deps.js';

async function secondRoot() {
  const root = await tempRoot({
    'alice/episodic/2026-11-30.md': DAY_LOG,
    'alice/semantic/office-key.md': 'The spare key of the office is in the top drawer.\n',
  });
  const rows = new InMemoryIndex();
  const second = new HashEmbedder(6, 'second-test');
  const cache = new LmdbVectorCache(join(root, STATE_DIR), 'second-test-6');
  const deps = unitDeps(root, { index: secondVectorIndex(rows, { embedder: second, cache, batchSize: 8 }), second });
  return { root, rows, second, deps };
}

describe('the second dense field', () => {
  it('gives every unit row the second vector of its bare text, and windows none', async () => {
    const { rows, second, deps } = await secondRoot();
    await syncIndex(deps);
    const all = [...rows.rows.values()];
    const units = all.filter((r) => r.kind === 'unit');
    expect(units.length).toBeGreaterThan(0);
    for (const u of units) expect(u.vector2).toEqual(await second.embedQuery(bareTextOf(u.content, u.heading)));
    expect(all.filter((r) => r.kind === 'window').every((r) => r.vector2 === undefined)).toBe(true);
    // The model read the bare texts, never a heading path.
    expect(second.embeddedTexts.some((t) => t.startsWith('2026-11-30\n'))).toBe(false);
  });

  it('embeds each bare text once: a rebuild reads them from its own cache', async () => {
    const { second, deps } = await secondRoot();
    await syncIndex(deps);
    const first = second.embeddedTexts.length;
    expect(first).toBeGreaterThan(0);
    await syncIndex(deps, { rebuild: true });
    expect(second.embeddedTexts.length).toBe(first);
  });

  it('a search asks the second field and reports its similarity; share 0 leaves it out', async () => {
    const { deps, second } = await secondRoot();
    await syncIndex(deps);
    const query = bareTextOf('- It hangs under the blue flower pot by the door', '');
    const ask = (share?: number) =>
      searchMemories(deps, { query, user: 'alice', unit: 'chunk', track: false, rescore: false, ...(share !== undefined ? { second: share } : {}) });
    const before = second.queryCalls;
    const withIt = await ask();
    expect(second.queryCalls).toBe(before + 1);
    // The hash model gives the identical bare text similarity 1: it comes first.
    expect(withIt[0]!.content).toContain('blue flower pot');
    expect(withIt[0]!.scores.second).toBeCloseTo(1, 6);
    const without = await ask(0);
    expect(second.queryCalls).toBe(before + 1);
    expect(without.every((r) => r.scores.second === undefined)).toBe(true);
  });
});
