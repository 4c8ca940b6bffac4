// Covers what memdir's commands say and refuse about a person's files: every command that rewrites a file a person
// edited and did not commit names it in its commit message (add, consolidate, gc, forget's back links), and no write
// produces a file with more tags than the index holds (an UPDATE merging tags, a summary of many tagged memories).
import { describe, expect, it } from 'vitest';

import { UsageError } from '../../../src/errors.js';
import { MAX_TAGS } from '../../../src/memory/model.js';
import { addMemory } from '../../../src/services/add.js';
import { consolidateMemories } from '../../../src/services/consolidate.js';
import { syncIndex } from '../../../src/services/core/sync.js';
import { forgetMemories } from '../../../src/services/forget.js';
import { collectGarbage } from '../../../src/services/gc.js';
import type { Embedder, Llm } from '../../../src/services/ports.js';
import { memoryFile, useCaseRoot, type UseCaseRoot } from '../../support/use-case-fixture.js';

/** The person's uncommitted files, as `git status` would list them (whole root, or among the paths asked). */
function handEdited(r: UseCaseRoot, edited: string[]): void {
  r.audit.uncommitted = async (paths) => (paths ?? edited).filter((p) => edited.includes(p));
}

const sameTopic: Embedder = {
  identity: { name: 'topic-test', dimension: 2 },
  embedDocuments: async (texts) => texts.map((t) => (/porto/i.test(t) ? [1, 0] : [0, 1])),
  embedQuery: async (t) => (/porto/i.test(t) ? [1, 0] : [0, 1]),
};

const tags = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe("a person's uncommitted edits in memdir's commits", () => {
  it('consolidate names a source file the person edited', async () => {
    const r = await useCaseRoot(
      {
        'ann/episodic/porto-1.md': memoryFile({ id: 'porto-1', user: 'ann', type: 'episodic' }, 'Ann took the train to Porto.'),
        'ann/episodic/porto-2.md': memoryFile({ id: 'porto-2', user: 'ann', type: 'episodic' }, 'Ann ate in Porto, by the river.'),
      },
      { embedder: sameTopic },
    );
    handEdited(r, ['ann/episodic/porto-2.md', 'bob/semantic/unrelated.md']);
    await consolidateMemories(r.deps, { user: 'ann', threshold: 0.9 });
    expect(r.audit.commits).toHaveLength(1);
    expect(r.audit.commits[0]!.message).toContain("includes_uncommitted: ann/episodic/porto-2.md (the person's changes, not committed before)");
    expect(r.audit.commits[0]!.message).not.toContain('unrelated');
  });

  it('gc names a file it marks expired that the person edited, not one it removes', async () => {
    const r = await useCaseRoot({
      'ann/working/today.md': memoryFile({ id: 'today', user: 'ann', type: 'working', expires: '2026-12-01T00:00:00.000Z' }, 'Ann is in a meeting.'),
      'ann/working/old.md': memoryFile({ id: 'old', user: 'ann', type: 'working', expires: '2026-10-01T00:00:00.000Z' }, 'Ann was at the dentist.'),
    });
    handEdited(r, ['ann/working/today.md']);
    await collectGarbage(r.deps, {});
    expect(r.audit.commits[0]!.message).toMatch(/^includes_uncommitted: ann\/working\/today\.md \(the person's changes, not committed before\)$/m);
    expect(r.audit.commits[0]!.message).not.toMatch(/^includes_uncommitted: .*old\.md/m);
  });

  it("forget names a back-linked file the person edited, never the forgotten one's path", async () => {
    const r = await useCaseRoot({
      'ann/semantic/home.md': memoryFile({ id: 'home', user: 'ann', key: 'home', status: 'superseded', superseded_by: 'madrid' }, 'Ann lives in Berlin.'),
      'ann/semantic/madrid.md': memoryFile({ id: 'madrid', user: 'ann', key: 'home', supersedes: 'home' }, 'Ann lives in Madrid.'),
    });
    await syncIndex(r.deps);
    handEdited(r, ['ann/semantic/home.md', 'ann/semantic/madrid.md']);
    await forgetMemories(r.deps, { ids: ['madrid'], user: 'ann' });
    expect(r.audit.commits[0]!.message).toContain('includes_uncommitted: ann/semantic/home.md (');
    expect(r.audit.commits[0]!.message).not.toContain('madrid');
  });

  it('says nothing when the rewritten files were committed', async () => {
    const r = await useCaseRoot({
      'ann/working/today.md': memoryFile({ id: 'today', user: 'ann', type: 'working', expires: '2026-12-01T00:00:00.000Z' }, 'Ann is in a meeting.'),
    });
    handEdited(r, []);
    await collectGarbage(r.deps, {});
    expect(r.audit.commits[0]!.message).toMatch(/action: GC/);
    expect(r.audit.commits[0]!.message).not.toContain('includes_uncommitted');
  });
});

describe('never more tags than the index holds', () => {
  const updating: Llm = { model: 'fake', completeJson: async () => ({ action: 'UPDATE', target_id: 'tea', reason: 'more detail', text: null }) };

  it('an UPDATE whose merged tags would pass the limit is refused before anything is written', async () => {
    const file = memoryFile({ id: 'tea', user: 'ann', key: 'drink', tags: tags(60, 'old') }, 'Ann drinks green tea.');
    const r = await useCaseRoot({ 'ann/semantic/tea.md': file }, { llm: updating });
    await syncIndex(r.deps);
    const add = addMemory(r.deps, { user: 'ann', text: 'Ann drinks green tea, unsweetened.', key: 'drink', tags: tags(10, 'new') });
    await expect(add).rejects.toBeInstanceOf(UsageError);
    await expect(add).rejects.toThrow(`ann/semantic/tea.md (id tea), and its tags with these would be 70, over the ${MAX_TAGS}`);
    expect(await r.read('ann/semantic/tea.md')).toBe(file);
    expect(r.audit.commits).toEqual([]);
    // Within the limit the same UPDATE goes through with the tags merged.
    const ok = await addMemory(r.deps, {
      user: 'ann',
      text: 'Ann drinks green tea, unsweetened.',
      key: 'drink',
      tags: ['old0', 'new0', 'new1', 'new2', 'new3'],
    });
    expect(ok.action).toBe('UPDATE');
    expect((await syncIndex(r.deps)).errors).toEqual([]);
    expect(r.index.rowsOf('ann/semantic/tea.md')[0]!.tags).toHaveLength(MAX_TAGS);
  });

  it('a summary of memories with more tags between them than the limit keeps the first 64 and is indexed', async () => {
    const r = await useCaseRoot(
      {
        'ann/episodic/porto-1.md': memoryFile({ id: 'porto-1', user: 'ann', type: 'episodic', tags: tags(40, 'a') }, 'Ann took the train to Porto.'),
        'ann/episodic/porto-2.md': memoryFile({ id: 'porto-2', user: 'ann', type: 'episodic', tags: tags(40, 'b') }, 'Ann ate in Porto.'),
      },
      { embedder: sameTopic },
    );
    const result = await consolidateMemories(r.deps, { user: 'ann', threshold: 0.9 });
    const summary = result.groups[0]!.summary!;
    expect((await syncIndex(r.deps)).errors).toEqual([]);
    expect(r.index.rowsOf(summary.path)[0]!.tags).toEqual([...tags(40, 'a'), ...tags(24, 'b')]);
  });
});
