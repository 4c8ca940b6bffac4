// Covers resolveLinks: effective statuses from supersedes/sources (chains, lists, expired correctors) and every link problem.
import { describe, expect, it } from 'vitest';

import type { MemoryStatus } from '../../../src/memory/model.js';
import { resolveLinks, successors, withStatus } from '../../../src/services/core/links.js';
import type { ManifestEntry } from '../../../src/services/ports.js';

type Spec = Partial<ManifestEntry> & { id: string; user?: string };

/** Manifest entries at `<user>/<id>.md` from short specs. */
function entries(...specs: Spec[]): Map<string, ManifestEntry> {
  return new Map(
    specs.map(({ id, user = 'alice', ...rest }) => [
      `${user}/${id}.md`,
      { size: 1, mtimeMs: 1, sha: id, memoryId: id, user, type: 'semantic', status: 'active', chunks: [], ...rest } as ManifestEntry,
    ]),
  );
}

const statusOf = (map: Map<string, MemoryStatus>) => Object.fromEntries([...map].map(([p, s]) => [p.replace(/\.md$/, ''), s]));

describe('resolveLinks', () => {
  it('takes a memory named in supersedes out of search, through a chain, without any file saying so', () => {
    const { statuses, problems } = resolveLinks(entries({ id: 'a' }, { id: 'b', supersedes: 'a' }, { id: 'c', supersedes: 'b' }));
    expect(statusOf(statuses)).toEqual({ 'alice/a': 'superseded', 'alice/b': 'superseded', 'alice/c': 'active' });
    expect(problems).toEqual([]);
  });

  it('reads a list of ids, and summaries make their sources consolidated', () => {
    const { statuses } = resolveLinks(entries({ id: 'a' }, { id: 'b' }, { id: 'c', supersedes: ['a', 'b'] }, { id: 'd' }, { id: 's', sources: ['d', 'c'] }));
    expect(statusOf(statuses)).toEqual({
      'alice/a': 'superseded',
      'alice/b': 'superseded',
      'alice/c': 'consolidated',
      'alice/d': 'consolidated',
      'alice/s': 'active',
    });
  });

  it('lets an expired correction lapse, keeps what a file says of itself, and a superseded correction still stands', () => {
    const { statuses } = resolveLinks(
      entries(
        { id: 'a' },
        { id: 'b', supersedes: 'a', status: 'expired' },
        { id: 'x', status: 'expired' },
        { id: 'y', supersedes: 'x' },
        { id: 'p' },
        { id: 'q', supersedes: 'p', status: 'superseded', supersededBy: 'r' },
        { id: 'r' },
      ),
    );
    expect(statusOf(statuses)).toMatchObject({ 'alice/a': 'active', 'alice/x': 'expired', 'alice/p': 'superseded', 'alice/q': 'superseded' });
  });

  it('resolves from the status the file says, not the one a previous sync gave (fileStatus)', () => {
    const { statuses } = resolveLinks(entries({ id: 'a', status: 'superseded', fileStatus: 'active' }));
    expect(statusOf(statuses)).toEqual({ 'alice/a': 'active' });
  });

  it('ignores and reports links to nothing, to another user, to itself, and around a cycle', () => {
    const { statuses, problems } = resolveLinks(
      entries(
        { id: 'a', supersedes: 'nowhere' },
        { id: 'b', supersedes: 'erins' },
        { id: 'erins', user: 'erin' },
        { id: 'c', supersedes: ['c'] },
        { id: 'd', supersedes: 'e' },
        { id: 'e', supersedes: 'f' },
        { id: 'f', supersedes: 'd' },
        { id: 'g', supersedes: 'd' },
        { id: 's', sources: ['gone'] },
      ),
    );
    // Nothing is hidden by a bad link; a good link into a cycle still counts.
    expect(statusOf(statuses)).toMatchObject({
      'alice/a': 'active',
      'erin/erins': 'active',
      'alice/c': 'active',
      'alice/e': 'active',
      'alice/f': 'active',
      'alice/d': 'superseded',
    });
    expect(problems.map((p) => [p.kind, p.path, p.key, p.target])).toEqual([
      ['dangling-link', 'alice/a.md', 'supersedes', 'nowhere'],
      ['cross-user-link', 'alice/b.md', 'supersedes', 'erins'],
      ['self-link', 'alice/c.md', 'supersedes', 'c'],
      ['dangling-link', 'alice/s.md', 'sources', 'gone'],
      ['link-cycle', 'alice/d.md', 'supersedes', 'e'],
      ['link-cycle', 'alice/e.md', 'supersedes', 'f'],
      ['link-cycle', 'alice/f.md', 'supersedes', 'd'],
    ]);
    expect(problems.find((p) => p.kind === 'link-cycle')!.message).toMatch(/forms a cycle \(d, e, f\).*remove the link that is wrong/);
    expect(problems.find((p) => p.kind === 'cross-user-link')!.message).toMatch(/another user's memory, not alice's/);
  });

  it('reports a superseded or consolidated memory that nothing replaces, and back links to nothing', () => {
    const { problems } = resolveLinks(
      entries(
        { id: 'lonely', status: 'superseded' },
        { id: 'folded', status: 'consolidated' },
        { id: 'ok', status: 'superseded', supersededBy: 'new' },
        { id: 'new' },
        { id: 'named', status: 'superseded' },
        { id: 'newer', supersedes: 'named' },
        { id: 'old', status: 'superseded', supersededBy: 'vanished' },
      ),
    );
    expect(problems.map((p) => [p.kind, p.path, p.key])).toEqual([
      ['dangling-link', 'alice/old.md', 'superseded_by'],
      ['no-successor', 'alice/lonely.md', 'status'],
      ['no-successor', 'alice/folded.md', 'status'],
    ]);
    expect(problems[1]!.message).toMatch(/set status: active, or add supersedes: <this id> to the memory that replaces it/);
  });

  it('withStatus keeps the file status beside an overriding one, and drops it when they agree again', () => {
    const [entry] = entries({ id: 'a' }).values();
    const hidden = withStatus(entry!, 'superseded');
    expect([hidden.status, hidden.fileStatus]).toEqual(['superseded', 'active']);
    const back = withStatus(hidden, 'active');
    expect(back.status).toBe('active');
    expect('fileStatus' in back).toBe(false);
  });

  it('successors name what replaced each memory out of search, from either file', () => {
    const map = entries(
      { id: 'a', status: 'superseded', fileStatus: 'active' },
      { id: 'b', supersedes: 'a' },
      { id: 'c', status: 'superseded', supersededBy: 'd' },
      { id: 'd' },
      { id: 'e', status: 'consolidated', fileStatus: 'active' },
      { id: 's', sources: ['e'] },
      { id: 'f', user: 'bob', status: 'superseded', fileStatus: 'active' },
    );
    expect(Object.fromEntries(successors(map))).toEqual({ 'alice/a.md': 'b', 'alice/c.md': 'd', 'alice/e.md': 's' });
  });
});
