// Covers the sync's early embedding: a changed file's new texts go to the embedder while the loop goes on over the others.
import { describe, expect, it } from 'vitest';

import { syncIndex } from '../../../src/services/core/sync.js';
import type { Progress } from '../../../src/services/ports.js';
import { edit, setup } from '../../support/sync-fixture.js';

// More unchanged files after the changed one than the loop handles between two yields (YIELD_EVERY_FILES, 100).
const OTHERS = 1_000;
const tree = (): Record<string, string> => {
  const t: Record<string, string> = { 'alice/semantic/tea.md': 'Alice likes green tea in the morning.\n' };
  for (let i = 0; i < OTHERS; i++) t[`bob/episodic/n-${String(i).padStart(4, '0')}.md`] = `Note ${i} about the trip.\n`;
  return t;
};

/**
 * Counts the files the sync has gone past (its progress ticks), each taking `spinMs` of this thread: as 50,000 files'
 * loop gives the request's steps (cache read, request) time to complete between the loop's yields, these 1,000 do.
 */
function counting(spinMs: number): Progress & { ticks: number } {
  const spin = () => {
    const until = performance.now() + spinMs;
    while (performance.now() < until);
  };
  const p = { ticks: 0, start() {}, stop() {}, tick: (n = 1) => void ((p.ticks += n), spin()) };
  return p;
}

describe('syncIndex: embedding a changed file ahead', () => {
  it("sends a changed file's new texts before the loop over the other files ends, each text once", async () => {
    const { root, deps, embedder, index } = await setup(tree());
    await syncIndex(deps);
    await edit(root, 'alice/semantic/tea.md', 'Alice likes green tea in the morning, and white tea at night.\n');
    const progress = counting(1);
    const ticksAtCall: number[] = [];
    const embed = embedder.embedDocuments.bind(embedder);
    embedder.embedDocuments = async (texts) => {
      ticksAtCall.push(progress.ticks);
      return embed(texts);
    };
    const before = embedder.embeddedTexts.length;
    const report = await syncIndex(deps, { progress });
    expect(report).toMatchObject({ embedded: 1, upserted: 1, skipped: OTHERS, errors: [] });
    expect(ticksAtCall).toHaveLength(1);
    // The alice file comes first in the scan: its request went out while most of bob's files were still to come.
    expect(ticksAtCall[0]).toBeLessThan(OTHERS);
    expect(embedder.embeddedTexts.slice(before)).toEqual(['Alice likes green tea in the morning, and white tea at night.']);
    expect(index.rowsOf('alice/semantic/tea.md').map((r) => r.content)).toEqual(['Alice likes green tea in the morning, and white tea at night.']);
  }, 60_000);

  it("fails the sync when the early request fails, as the batch's own would; the old rows stay", async () => {
    const { root, deps, embedder, index } = await setup(tree());
    await syncIndex(deps);
    await edit(root, 'alice/semantic/tea.md', 'Alice now prefers coffee.\n');
    embedder.embedDocuments = () => Promise.reject(new Error('embedding server down'));
    await expect(syncIndex(deps)).rejects.toThrow('embedding server down');
    expect(index.rowsOf('alice/semantic/tea.md').map((r) => r.content)).toEqual(['Alice likes green tea in the morning.']);
  }, 60_000);
});
