// Covers duplicates.ts: id lookups within a scope (NFC), a shared id in one scope as an error by path and line,
// the one-active-memory-per-key check, and duplicateIdErrors against a plain definition on random manifests.
import { rm } from 'node:fs/promises';

import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';

import { DuplicateIdError } from '../../../src/errors.js';
import { duplicateIdErrors, duplicateKeys, resolveId, sameId, type IdEntry } from '../../../src/services/core/duplicates.js';
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

describe('duplicateIdErrors on random manifests', () => {
  it('reports each file whose user has another file of its id (in either Unicode form), naming the others in order', async () => {
    // Files that cannot be read: the line is 1, the rest is what the entries say.
    const deps = { files: { read: () => Promise.reject(new Error('not read')) } } as unknown as Parameters<typeof duplicateIdErrors>[0];
    const entry = fc.record({ user: fc.constantFrom('ann', 'bob', 'eve'), memoryId: fc.constantFrom('a', 'b', 'caf\u00e9', 'cafe\u0301', 'd') });
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { maxLength: 12 }), async (list) => {
        const entries = new Map<string, IdEntry>(list.map((e, i) => [`${e.user}/${i}.md`, { ...e, status: 'active' }]));
        const expected = [...entries]
          .map(([path, e]) => {
            const others = [...entries].filter(([p, o]) => p !== path && o.user === e.user && sameId(o.memoryId, e.memoryId)).map(([p]) => p);
            return { path, line: 1, message: `duplicate id ${JSON.stringify(e.memoryId)}: also used by ${others.join(', ')}`, others };
          })
          .filter((x) => x.others.length > 0)
          .map(({ others: _others, ...error }) => error);
        const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
        expect((await duplicateIdErrors(deps, entries)).sort(byPath)).toEqual(expected.sort(byPath));
      }),
      { numRuns: 300, seed: 13 },
    );
  });
});
