// Covers the forgetting rules that need no real index: the commit is an audit record without ids, paths or text;
// a history rewrite is refused (before anything is forgotten) inside a larger repository or over uncommitted work;
// a sync that deletes rows leaves a purge pending, and a purge clears it with the unused vectors and statistics.
import { rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { UsageError } from '../../../src/errors.js';
import { forgetMemories } from '../../../src/services/forget.js';
import { purgeLocked } from '../../../src/services/core/purge.js';
import type { PurgeScope } from '../../../src/services/ports.js';
import { accessKey } from '../../../src/services/ports.js';
import { syncIndex } from '../../../src/services/core/sync.js';
import { tempRoot } from '../../support/temp-root.js';
import { recordingAudit, unitDeps } from '../../support/unit-deps.js';

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

const TREE = {
  'alice/semantic/spare-key-under-the-flowerpot.md': '---\nid: spare-key-under-the-flowerpot\n---\nAlice keeps her spare key under the green flowerpot.\n',
  'alice/semantic/seats.md': '---\nid: seats\n---\nAlice prefers window seats on long flights.\n',
};

async function root(): Promise<string> {
  const r = await tempRoot(TREE);
  roots.push(r);
  return r;
}

describe('forget: the audit record', () => {
  it('records who, why and how many, and neither the id, the path nor the text', async () => {
    const audit = recordingAudit();
    const deps = unitDeps(await root(), { audit });
    const result = await forgetMemories(deps, { ids: ['spare-key-under-the-flowerpot'], user: 'alice', reason: 'asked  by\nAlice' });
    expect(result.removed.map((r) => r.id)).toEqual(['spare-key-under-the-flowerpot']);
    expect(result.audit).toEqual({ by: 'Test <test@localhost>', reason: 'asked by Alice', count: 1 });
    const message = audit.commits.at(-1)!.message;
    expect(message).toMatch(/^memdir: FORGET alice\n/);
    expect(message).toContain('count: 1\nby: Test <test@localhost>\nreason: asked by Alice');
    for (const word of ['spare', 'flowerpot', 'key']) expect(message).not.toContain(word);
    expect(audit.commits.at(-1)!.paths).toEqual(['alice/semantic/spare-key-under-the-flowerpot.md']);
    expect(result.verified).toMatchObject({ indexRows: 0, index: 'compacted', stateHits: [] });
  });
});

describe('forget --purge-history: refusals come before anything is forgotten', () => {
  const withScope = (scope: PurgeScope) => ({ ...recordingAudit(), purgeScope: async () => scope });

  it('refuses inside a larger repository, naming it and its branches, unless told explicitly', async () => {
    const r = await root();
    const audit = withScope({ repository: '/work/project', rootIsRepository: false, branches: ['main', 'feature'], uncommitted: 0 });
    const deps = unitDeps(r, { audit });
    const err = await forgetMemories(deps, { ids: ['seats'], purgeHistory: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UsageError);
    expect(String(err)).toContain('/work/project');
    expect(String(err)).toContain('branches: main, feature');
    expect(String(err)).toContain('--rewrite-project-history');
    expect(audit.commits).toEqual([]);
    expect((await deps.manifest.load())?.has('alice/semantic/seats.md')).toBe(true);

    const allowed = await forgetMemories(deps, { ids: ['seats'], purgeHistory: true, rewriteProjectHistory: true });
    expect(allowed.purged).toBe(true);
  });

  it('refuses over uncommitted changes even with the flag', async () => {
    const deps = unitDeps(await root(), { audit: withScope({ repository: '/r', rootIsRepository: true, branches: ['main'], uncommitted: 2 }) });
    const err = await forgetMemories(deps, { ids: ['seats'], purgeHistory: true, rewriteProjectHistory: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UsageError);
    expect(String(err)).toMatch(/2 tracked files of \/r have uncommitted changes/);
  });
});

describe('purge', () => {
  it('a sync that deleted rows leaves a purge pending; the purge clears it, unused vectors and statistics', async () => {
    const r = await root();
    const deps = unitDeps(r);
    await syncIndex(deps);
    expect(await deps.residue.deletedSinceLastPurge()).toBe(false);
    const hashes = [...(await deps.manifest.textHashes((await deps.manifest.load())!))];
    deps.access.touch([accessKey('alice', 'seats'), accessKey('alice', 'spare-key-under-the-flowerpot')], 1);
    await deps.access.settle();

    await unlink(join(r, 'alice/semantic/spare-key-under-the-flowerpot.md'));
    expect((await syncIndex(deps)).deleted).toBe(1);
    expect(await deps.residue.deletedSinceLastPurge()).toBe(true);
    // The sync removed the rows; the cache still holds the deleted text's vector until the purge.
    expect((await deps.cache.getMany(hashes)).size).toBe(2);

    expect(await purgeLocked(deps)).toEqual({ index: 'compacted', cachedVectorsRemoved: 1, accessRecordsRemoved: 1 });
    expect(await deps.residue.deletedSinceLastPurge()).toBe(false);
    expect((await deps.cache.getMany(hashes)).size).toBe(1);
    expect([...(await deps.access.get([accessKey('alice', 'seats'), accessKey('alice', 'spare-key-under-the-flowerpot')])).keys()]).toEqual([
      accessKey('alice', 'seats'),
    ]);
    // Nothing pending: the index is left alone.
    expect(await purgeLocked(deps)).toEqual({ index: 'clean', cachedVectorsRemoved: 0, accessRecordsRemoved: 0 });
  });

  it('the state folder scan finds a needle in any file and names it', async () => {
    const r = await root();
    const deps = unitDeps(r);
    await syncIndex(deps);
    await deps.residue.markDeleted();
    const scan = await deps.residue.scan([new TextEncoder().encode('purge-pending'), new TextEncoder().encode('no such text anywhere')]);
    expect(scan.files).toBeGreaterThan(1);
    expect(scan.hits).toEqual([]);
    const found = await deps.residue.scan([new TextEncoder().encode('spare-key-under-the-flowerpot')]);
    expect(found.hits.some((h) => h.startsWith('manifest'))).toBe(true);
  });
});
