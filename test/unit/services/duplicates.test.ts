// Covers duplicates.ts: id lookups within a scope (NFC), a shared id in one scope as an error by path and line,
// and the one-active-memory-per-key check.
import { rm } from 'node:fs/promises';

import { afterEach, describe, expect, it } from 'vitest';

import { DuplicateIdError } from '../../../src/errors.js';
import { duplicateIdErrors, duplicateKeys, resolveId } from '../../../src/services/core/duplicates.js';
import type { ManifestEntry } from '../../../src/services/ports.js';
import { syncIndex } from '../../../src/services/core/sync.js';
import { tempRoot } from '../../support/temp-root.js';
import { unitDeps } from '../../support/unit-deps.js';

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

async function setup() {
  const root = await tempRoot({
    'aaron/semantic/shared.md': '---\nid: shared\n---\nAaron.\n',
    'bob/semantic/shared.md': '---\nid: shared\n---\nBob.\n',
    'carol/semantic/a.md': '---\nuser: carol\nid: twin\n---\nCarol A.\n',
    'carol/semantic/b.md': '---\nid: twin\nuser: carol\n---\nCarol B.\n',
    'carol/cafe\u0301.md': 'Carol at the café.\n',
  });
  roots.push(root);
  const deps = unitDeps(root);
  const report = await syncIndex(deps);
  return { deps, report, entries: (await deps.manifest.load())! };
}

describe('duplicate ids', () => {
  it("resolves an id within the caller's scope, in either Unicode form", async () => {
    const { deps, entries } = await setup();
    expect(await resolveId(deps, entries, 'shared', 'bob')).toBe('bob/semantic/shared.md');
    expect(await resolveId(deps, entries, 'shared', 'aaron')).toBe('aaron/semantic/shared.md');
    expect(await resolveId(deps, entries, 'carol/café', 'carol')).toBe('carol/cafe\u0301.md');
    expect(await resolveId(deps, entries, 'nothing', 'bob')).toBeUndefined();
  });

  it('several files in the scope are an error naming each path and line', async () => {
    const { deps, entries } = await setup();
    const everyone = await resolveId(deps, entries, 'shared').catch((err: unknown) => err);
    expect(everyone).toBeInstanceOf(DuplicateIdError);
    expect((everyone as Error).message).toContain('aaron/semantic/shared.md:2, bob/semantic/shared.md:2');
    expect((everyone as Error).message).toContain('--user');
    const carol = await resolveId(deps, entries, 'twin', 'carol').catch((err: unknown) => err);
    expect(carol).toBeInstanceOf(DuplicateIdError);
    expect((carol as Error).message).toContain('carol/semantic/a.md:3, carol/semantic/b.md:2');
  });

  it('sync reports a shared id within one user only, both files still indexed', async () => {
    const { deps, report, entries } = await setup();
    expect(report.errors).toEqual(await duplicateIdErrors(deps, entries));
    expect(report.errors.map((e) => `${e.path}:${e.line}`)).toEqual(['carol/semantic/a.md:3', 'carol/semantic/b.md:2']);
    expect(entries.has('carol/semantic/a.md') && entries.has('carol/semantic/b.md')).toBe(true);
  });
});

describe('duplicateKeys', () => {
  const entry = (user: string, key: string | undefined, status: ManifestEntry['status'] = 'active', expires?: number) => ({
    memoryId: `${user}-${key}-${status}`,
    user,
    status,
    ...(key ? { key } : {}),
    ...(expires ? { expires } : {}),
  });

  it('finds active, unexpired memories of one user sharing a key', () => {
    const entries = new Map([
      ['a', entry('ann', 'city')],
      ['b', entry('ann', 'city')],
      ['c', entry('ann', 'city', 'superseded')],
      ['d', entry('bob', 'city')],
      ['e', entry('ann', 'job')],
      ['f', entry('ann', 'job', 'active', 1)],
      ['g', entry('ann', undefined)],
    ]);
    expect(duplicateKeys(entries, 1000)).toEqual([{ user: 'ann', key: 'city', paths: ['a', 'b'] }]);
  });
});
