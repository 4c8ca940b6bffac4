// Covers settleUnmerged on an in-memory stand-in for git's unmerged stages: a forget's deletion wins, any other
// deletion loses to the change (and says so), a file both changed is merged, an unreadable one is left.
import { describe, expect, it } from 'vitest';

import { commitMessage, isForgetMessage } from '../../../../src/services/core/commit-message.js';
import { settleUnmerged } from '../../../../src/services/merge/settle.js';
import type { UnmergedFile, UnmergedFiles } from '../../../../src/services/ports.js';

const memory = (updated: string, body: string) => `---\nid: home\nupdated: ${updated}\n---\n${body}\n`;

function fakeGit(files: UnmergedFile[], deletions: Record<string, string>) {
  const resolved = new Map<string, string | null>();
  const git: UnmergedFiles = {
    operation: async () => 'merge',
    list: async () => files,
    deletion: async (path) => deletions[path],
    resolve: async (path, text) => void resolved.set(path, text),
  };
  return { git, resolved };
}

describe('isForgetMessage', () => {
  it('knows forget’s own messages and no other', () => {
    expect(isForgetMessage(commitMessage('FORGET', { user: 'ann', count: '1' }))).toBe(true);
    expect(isForgetMessage(commitMessage('FORGET-QUERY', { user: 'ann', count: '2' }))).toBe(true);
    expect(isForgetMessage(commitMessage('GC', { user: 'ann' }))).toBe(false);
    expect(isForgetMessage('remove old notes\n\naction: FORGET')).toBe(false);
  });
});

describe('settleUnmerged', () => {
  const base = memory('2026-11-01T00:00:00Z', 'Ann lives in Lyon.');
  const changed = memory('2026-12-01T00:00:00Z', 'Ann lives in Paris.');

  it('lets a forget’s deletion win and a hand deletion lose to the change', async () => {
    const { git, resolved } = fakeGit(
      [
        { path: 'ann/semantic/forgotten.md', base, ours: changed },
        { path: 'ann/semantic/tidied.md', base, theirs: changed },
      ],
      {
        'ann/semantic/forgotten.md': commitMessage('FORGET', { user: 'ann', count: '1' }),
        'ann/semantic/tidied.md': 'tidy up\n\nold stuff',
      },
    );
    const report = await settleUnmerged(git);
    expect(report.settled.map((f) => [f.path, f.how])).toEqual([
      ['ann/semantic/forgotten.md', 'forgotten'],
      ['ann/semantic/tidied.md', 'change-kept'],
    ]);
    expect(report.settled[1]!.note).toMatch(/tidy up.*not by mem forget/);
    expect(resolved.get('ann/semantic/forgotten.md')).toBeNull();
    expect(resolved.get('ann/semantic/tidied.md')).toBe(changed);
    expect(report.next).toBe('git commit');
  });

  it('merges a file both sides changed and leaves one it cannot read', async () => {
    const { git, resolved } = fakeGit(
      [
        { path: 'ann/semantic/home.md', base, ours: changed, theirs: memory('2026-12-02T00:00:00Z', 'Ann lives in Hamburg.') },
        { path: 'ann/semantic/broken.md', base, ours: '---\nid: [x\n---\nx\n', theirs: changed },
      ],
      {},
    );
    const report = await settleUnmerged(git);
    expect(report.settled).toEqual([
      expect.objectContaining({ path: 'ann/semantic/home.md', how: 'kept-both', kept: expect.stringMatching(/^ann\/semantic\/home\.[0-9a-f]{8}\.md$/) }),
    ]);
    expect(resolved.get('ann/semantic/home.md')).toContain('Hamburg');
    expect(resolved.get(report.settled[0]!.kept!)).toContain('Paris');
    expect(report.left.map((f) => f.path)).toEqual(['ann/semantic/broken.md']);
    expect(report.next).toBeUndefined();
  });
});
