// Covers consolidateMemories on the fakes: related memories of one user fold into a summary that cites them,
// the originals become consolidated, one commit; a dry run writes nothing; other users and types are left alone.
import { describe, expect, it } from 'vitest';

import { UsageError } from '../../../src/errors.js';
import { consolidateMemories } from '../../../src/services/consolidate.js';
import type { Embedder } from '../../../src/services/ports.js';
import { memoryFile, useCaseRoot } from '../../support/use-case-fixture.js';

/** Texts about the same topic get the same vector: grouping by meaning without a model. */
const topicEmbedder: Embedder = {
  identity: { name: 'topic-test', dimension: 3 },
  embedDocuments: async (texts) => texts.map(topicVector),
  embedQuery: async (text) => topicVector(text),
};
function topicVector(text: string): number[] {
  if (/porto/i.test(text)) return [1, 0, 0];
  if (/tea/i.test(text)) return [0, 1, 0];
  return [0, 0, 1];
}

const TREE = {
  'ann/episodic/porto-1.md': memoryFile({ id: 'porto-1', user: 'ann', type: 'episodic', created: '2026-11-01T00:00:00.000Z' }, 'Ann took the train to Porto.'),
  'ann/episodic/porto-2.md': memoryFile({ id: 'porto-2', user: 'ann', type: 'episodic', created: '2026-11-02T00:00:00.000Z' }, 'Ann ate francesinha in Porto.'),
  'ann/episodic/tea.md': memoryFile({ id: 'tea', user: 'ann', type: 'episodic' }, 'Ann bought green tea.'),
  'bob/episodic/porto.md': memoryFile({ id: 'bob-porto', user: 'bob', type: 'episodic' }, 'Bob flew to Porto.'),
};

describe('consolidateMemories', () => {
  it('folds a group into one summary citing its sources, marks them consolidated, and commits once', async () => {
    const r = await useCaseRoot(TREE, { embedder: topicEmbedder });
    const result = await consolidateMemories(r.deps, { user: 'ann', threshold: 0.9 });
    expect(result.dryRun).toBe(false);
    expect(result.groups).toHaveLength(1);
    const [group] = result.groups;
    expect(group!.members.map((m) => m.id)).toEqual(['porto-1', 'porto-2']);
    expect(group!.summary).toMatchObject({ sources: ['porto-1', 'porto-2'], summarisedBy: 'extractive' });
    const summary = await r.read(group!.summary!.path);
    expect(summary).toMatch(/^sources:/m);
    expect(summary).toContain('porto-1');
    expect(await r.read('ann/episodic/porto-1.md')).toMatch(/^status: consolidated$/m);
    expect(await r.read('ann/episodic/porto-1.md')).toContain(`consolidated_into: ${group!.summary!.id}`);
    expect(await r.read('ann/episodic/tea.md')).not.toMatch(/^status:/m);
    expect(await r.read('bob/episodic/porto.md')).not.toMatch(/^status:/m);
    expect(r.index.rowsOf(group!.summary!.path)).not.toEqual([]);
    expect(r.audit.commits).toHaveLength(1);
    expect(r.audit.commits[0]!.message).toContain('action: CONSOLIDATE');
  });

  it('shows the groups in a dry run without writing anything', async () => {
    const r = await useCaseRoot(TREE, { embedder: topicEmbedder });
    const before = await r.read('ann/episodic/porto-1.md');
    const result = await consolidateMemories(r.deps, { user: 'ann', threshold: 0.9, dryRun: true });
    expect(result).toEqual({
      dryRun: true,
      groups: [
        {
          members: [
            { id: 'porto-1', path: 'ann/episodic/porto-1.md' },
            { id: 'porto-2', path: 'ann/episodic/porto-2.md' },
          ],
        },
      ],
    });
    expect(await r.read('ann/episodic/porto-1.md')).toBe(before);
    expect(r.audit.commits).toEqual([]);
  });

  it('rejects a threshold outside (0, 1] and an invalid user', async () => {
    const r = await useCaseRoot(TREE, { embedder: topicEmbedder });
    await expect(consolidateMemories(r.deps, { user: 'ann', threshold: 0 })).rejects.toBeInstanceOf(UsageError);
    await expect(consolidateMemories(r.deps, { user: 'ann', threshold: 1.5 })).rejects.toBeInstanceOf(UsageError);
    await expect(consolidateMemories(r.deps, { user: '' })).rejects.toBeInstanceOf(UsageError);
  });
});
