// The decisions of `mem sync` over a scripted repository: what is done in which order, and that every failure after the
// first change puts the repository back with the record of what was changed (real git: test/e2e/remote-sync.test.ts).
import { rm } from 'node:fs/promises';

import { afterEach, describe, expect, it } from 'vitest';

import { MemError } from '../../../../src/errors.js';
import { syncWithRemote } from '../../../../src/services/git-sync/remote-sync.js';
import type { MemoryRepository, SyncRecord } from '../../../../src/services/ports.js';
import { tempRoot } from '../../../support/temp-root.js';
import { unitDeps } from '../../../support/unit-deps.js';

type Script = Partial<MemoryRepository>;

/** A repository whose every call is recorded; `script` overrides the answers of an own repository in step with its remote. */
function scripted(script: Script = {}) {
  const calls: string[] = [];
  const restored: SyncRecord[] = [];
  let saved: SyncRecord | null = null;
  const base: MemoryRepository = {
    place: async () => ({ kind: 'own', branch: 'main', remote: 'origin', remoteBranch: 'main', url: '/remote.git' }),
    pendingSync: async () => saved,
    saveSync: async (r) => void (saved = r),
    endSync: async () => void (saved = null),
    snapshot: async () => ({ head: 'h0', indexTree: null, trackingRef: 'refs/remotes/origin/main', tracking: 't0' }),
    remoteTip: async () => 't1',
    fetch: async () => {},
    commitAll: async () => null,
    contains: async (a, b) => a === b || (a === 't0' && b === 't1') || (a === 'h0' && b === 'h1'),
    has: async () => true,
    head: async () => 'h1',
    operationInProgress: async () => null,
    merge: async () => [],
    rebase: async () => [],
    continueOperation: async () => [],
    push: async () => {},
    restore: async (r) => void restored.push(r),
    changes: async () => ({ added: [], changed: [], deleted: [] }),
    commitsBetween: async () => ({ commits: 1, forgets: 0 }),
    oldHistoryBase: async () => null,
    prune: async () => {},
    purgedFrom: async () => null,
    clearPurged: async () => {},
  };
  const repo = Object.fromEntries(
    Object.entries({ ...base, ...script }).map(([name, fn]) => [
      name,
      (...args: unknown[]) => {
        calls.push(name);
        return (fn as (...a: unknown[]) => unknown)(...args);
      },
    ]),
  ) as unknown as MemoryRepository;
  return { repo, calls, restored, saved: () => saved };
}

describe('syncWithRemote', () => {
  let root: string | undefined;
  const deps = async (repository: MemoryRepository, extra = {}) => {
    root = await tempRoot({});
    return unitDeps(root, { repository, ...extra });
  };
  afterEach(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('inside a project repository: says so and calls nothing after finding out', async () => {
    const { repo, calls } = scripted({ place: async () => ({ kind: 'project', repository: '/work/app' }) });
    const result = await syncWithRemote(await deps(repo));
    expect(result).toMatchObject({ place: 'project', message: expect.stringContaining('/work/app') });
    expect(calls).toEqual(['place']);
  });

  it('an unreachable remote: fails before anything is recorded or changed', async () => {
    const { repo, calls, restored } = scripted({
      remoteTip: async () => {
        throw new MemError('cannot reach the remote origin');
      },
    });
    await expect(syncWithRemote(await deps(repo))).rejects.toThrow(/cannot reach/);
    expect(calls).not.toContain('saveSync');
    expect(calls).not.toContain('commitAll');
    expect(restored).toEqual([]);
  });

  it('a refused push: the repository is put back from the record, which names the commit of what was uncommitted', async () => {
    const { repo, restored, saved } = scripted({
      commitAll: async () => ({ commit: 'c1', files: ['ann/semantic/a.md'] }),
      push: async () => {
        throw new MemError('the remote origin refused the push');
      },
    });
    await expect(syncWithRemote(await deps(repo))).rejects.toThrow(/refused the push.*as it was before mem sync/);
    expect(restored).toEqual([expect.objectContaining({ phase: 'git', head: 'h0', committed: 'c1', tracking: 't0' })]);
    expect(saved()).toBeNull();
  });

  it('a conflict the merge driver leaves: put back, the file named', async () => {
    const { repo, restored, calls } = scripted({ merge: async () => ['ann/semantic/a.md', 'notes.txt'] });
    const mergeDriver = { settle: async (paths: string[]) => paths.filter((p) => !p.endsWith('.md')) };
    await expect(syncWithRemote(await deps(repo, { mergeDriver }))).rejects.toThrow(/could not be finished: notes\.txt/);
    expect(calls).not.toContain('push');
    expect(restored).toHaveLength(1);
  });

  it('a conflict the merge driver settles: the merge goes on and is pushed', async () => {
    const { repo, calls } = scripted({ merge: async () => ['ann/semantic/a.md'] });
    const mergeDriver = { settle: async () => [] };
    const result = await syncWithRemote(await deps(repo, { mergeDriver }));
    expect(result.place).toBe('own');
    expect(calls.indexOf('continueOperation')).toBeGreaterThan(calls.indexOf('merge'));
    expect(calls).toContain('push');
  });

  it('a remote whose history was rewritten: this clone’s commits are rebased from the old tip, never merged, and old objects pruned', async () => {
    const rebases: [string, string][] = [];
    const { repo, calls } = scripted({
      contains: async (a, b) => a === b,
      rebase: async (onto, upstream) => {
        rebases.push([onto, upstream]);
        return [];
      },
    });
    const result = await syncWithRemote(await deps(repo));
    expect(result.rewritten).toBe('remote');
    expect(rebases).toEqual([['t1', 't0']]);
    expect(calls).not.toContain('merge');
    expect(calls).toContain('prune');
  });

  it('this clone’s purge, with the remote still at the history it rewrote: pushed with a lease on that commit', async () => {
    const pushes: (string | null | undefined)[] = [];
    const { repo, calls } = scripted({
      purgedFrom: async () => 't1',
      has: async (c) => c !== 't1',
      push: async (_r, _b, lease) => void pushes.push(lease),
    });
    const result = await syncWithRemote(await deps(repo));
    expect(result.rewritten).toBe('local');
    expect(pushes).toEqual(['t1']);
    expect(calls).not.toContain('fetch');
    expect(calls).toContain('clearPurged');
  });
});
