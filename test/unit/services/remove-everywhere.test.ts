// Covers removeEverywhere on the fakes: a removed memory's summary is rewritten from the remaining sources,
// or dropped with its last source made active again; rows are verified gone.
import { describe, expect, it } from 'vitest';

import { IndexUnavailableError } from '../../../src/errors.js';
import { removeEverywhere } from '../../../src/services/remove-everywhere.js';
import { syncIndex } from '../../../src/services/core/sync.js';
import type { ManifestEntry } from '../../../src/services/ports.js';
import { InMemoryIndex } from '../../support/fakes.js';
import { memoryFile, useCaseRoot } from '../../support/use-case-fixture.js';

const source = (id: string, text: string) => memoryFile({ id, user: 'ann', type: 'episodic', status: 'consolidated', consolidated_into: 'sum' }, text);

function tree(sources: string[]) {
  return {
    ...Object.fromEntries(sources.map((id) => [`ann/episodic/${id}.md`, source(id, `Ann's day ${id}.`)])),
    'ann/semantic/sum.md': memoryFile({ id: 'sum', user: 'ann', sources }, 'Summary of the days.'),
  };
}

async function removeIds(r: Awaited<ReturnType<typeof useCaseRoot>>, ids: string[]) {
  await syncIndex(r.deps);
  const manifest = (await r.deps.manifest.load())!;
  const targets = [...manifest].filter(([, e]) => ids.includes(e.memoryId)) as [string, ManifestEntry][];
  return r.deps.lock.run(() => removeEverywhere(r.deps, manifest, targets));
}

describe('removeEverywhere', () => {
  it('rewrites a summary from its remaining sources (two or more)', async () => {
    const r = await useCaseRoot(tree(['d1', 'd2', 'd3']));
    const report = await removeIds(r, ['d1']);
    expect(report.removed.map((m) => m.id).sort()).toEqual(['d1', 'sum']);
    expect(report.regenerated).toHaveLength(1);
    expect(report.regenerated[0]).toMatchObject({ from: 'sum', restored: [] });
    const next = report.regenerated[0]!.to!;
    const manifest = (await r.deps.manifest.load())!;
    const entry = [...manifest.values()].find((e) => e.memoryId === next)!;
    expect(entry.sources).toEqual(['d2', 'd3']);
    expect(await r.exists('ann/semantic/sum.md')).toBe(false);
    expect(r.index.rowsOf('ann/episodic/d1.md')).toEqual([]);
    expect(report.paths).toEqual(expect.arrayContaining(['ann/episodic/d1.md', 'ann/semantic/sum.md', 'ann/episodic/d2.md']));
  });

  it('drops a summary left with one source and makes that source active again', async () => {
    const r = await useCaseRoot(tree(['d1', 'd2']));
    const report = await removeIds(r, ['d1']);
    expect(report.regenerated).toEqual([{ from: 'sum', restored: ['d2'] }]);
    const d2 = await r.read('ann/episodic/d2.md');
    expect(d2).toMatch(/^status: active$/m);
    expect(d2).not.toContain('consolidated_into');
    expect(r.index.rowsOf('ann/episodic/d2.md')[0]!.status).toBe('active');
  });

  it('fails when the index still holds rows of what it removed', async () => {
    class StickyIndex extends InMemoryIndex {
      override async count(): Promise<number> {
        return 1;
      }
    }
    const r = await useCaseRoot(tree(['d1', 'd2', 'd3']), { index: new StickyIndex() });
    await expect(removeIds(r, ['d3'])).rejects.toBeInstanceOf(IndexUnavailableError);
  });
});
