// Covers linkChanges, the link pass a sync runs: on random manifests and random edits it gives exactly what the full
// pass gave (every status and problem), reads a manifest without links once with no lookup, and a sync never makes
// every path's status.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';

import type { MemoryStatus } from '../../../src/memory/model.js';
import * as links from '../../../src/services/core/links.js';
import { syncIndex } from '../../../src/services/core/sync.js';
import type { ManifestEntry } from '../../../src/services/ports.js';
import { referenceResolveLinks } from '../../support/links-reference.js';
import { edit, setup } from '../../support/sync-fixture.js';

const { linkChanges, resolveLinks, withStatus } = links;

vi.mock('../../../src/services/core/links.js', async (actual) => {
  const real = await actual<typeof import('../../../src/services/core/links.js')>();
  return { ...real, resolveLinks: vi.fn(real.resolveLinks), linkChanges: vi.fn(real.linkChanges) };
});

const IDS = ['a', 'b', 'c', 'd', 'e'];
const STATUSES: MemoryStatus[] = ['active', 'superseded', 'consolidated', 'expired'];
const NOW = Date.parse('2026-12-03T10:00:00Z');
const DAY = 86_400_000;

const id = fc.constantFrom(...IDS, 'gone');
const ids = fc.array(id, { minLength: 0, maxLength: 3 });

/** A manifest entry as a sync parses it from a file: its status is the file's; links, expiry either side of now. */
const parsed = fc
  .record(
    {
      user: fc.constantFrom('alice', 'bob'),
      memoryId: fc.constantFrom(...IDS),
      status: fc.constantFrom(...STATUSES),
      supersedes: fc.oneof(id, fc.array(id, { minLength: 1, maxLength: 3 })),
      sources: ids,
      supersededBy: id,
      consolidatedInto: id,
      expires: fc.integer({ min: NOW - 2 * DAY, max: NOW + 2 * DAY }),
    },
    { requiredKeys: ['user', 'memoryId', 'status'] },
  )
  .map((f): ManifestEntry => ({ size: 1, mtimeMs: 1, sha: 'x', type: 'semantic', chunkCount: 1, ...f }));

/** Entries at paths unique per file, so two files may share an id (a duplicate) or carry another user's. */
const manifest = fc.array(parsed, { maxLength: 14 }).map((list) => new Map(list.map((e, i) => [`${e.user}/${e.memoryId}-${i}.md`, e] as const)));

/** What a finished sync leaves in the manifest: each entry with the status its links gave. */
function settled(entries: Map<string, ManifestEntry>): Map<string, ManifestEntry> {
  const { statuses } = referenceResolveLinks(entries);
  return new Map([...entries].map(([path, e]) => [path, withStatus(e, statuses.get(path)!)]));
}

type Edit =
  | { op: 'remove'; at: number }
  | { op: 'reparse'; at: number; entry: ManifestEntry }
  | { op: 'add'; entry: ManifestEntry }
  | { op: 'touch'; at: number }
  | { op: 'stale'; at: number; status: MemoryStatus; fileStatus: MemoryStatus };
const anEdit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constant('remove' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('reparse' as const), at: fc.nat(), entry: parsed }),
  fc.record({ op: fc.constant('add' as const), entry: parsed }),
  fc.record({ op: fc.constant('touch' as const), at: fc.nat() }),
  // A killed sync or an old manifest: an entry whose status a link gave once, whatever the links say now.
  fc.record({ op: fc.constant('stale' as const), at: fc.nat(), status: fc.constantFrom(...STATUSES), fileStatus: fc.constantFrom(...STATUSES) }),
);

/** The manifest a sync holds after these edits of the files: a re-read file's entry has its file's status again. */
function edited(before: Map<string, ManifestEntry>, edits: Edit[]): Map<string, ManifestEntry> {
  const next = new Map(before);
  let added = 0;
  for (const e of edits) {
    const paths = [...next.keys()];
    const path = 'at' in e && paths.length > 0 ? paths[e.at % paths.length]! : undefined;
    if (e.op === 'add') next.set(`${e.entry.user}/${e.entry.memoryId}-new${added++}.md`, e.entry);
    else if (path === undefined) continue;
    else if (e.op === 'remove') next.delete(path);
    else if (e.op === 'reparse') next.set(path, { ...e.entry, user: next.get(path)!.user });
    else if (e.op === 'touch') next.set(path, { ...next.get(path)!, size: 2, mtimeMs: 2 });
    else next.set(path, { ...next.get(path)!, status: e.status, fileStatus: e.fileStatus });
  }
  return next;
}

const sorted = (m: Map<string, MemoryStatus>) => [...m].sort(([a], [b]) => a.localeCompare(b));

/** linkChanges against the full pass on these entries: same problems in the same order, same status for every path. */
function expectSameAsFullPass(next: Map<string, ManifestEntry>): void {
  const full = referenceResolveLinks(next);
  const { restatus, problems } = linkChanges(next);
  expect(problems).toEqual(full.problems);
  // Exactly the paths whose entry carries another status than the full pass gives, with that status.
  const differing = new Map([...next].filter(([path, e]) => full.statuses.get(path) !== e.status).map(([path]) => [path, full.statuses.get(path)!]));
  expect(sorted(restatus)).toEqual(sorted(differing));
  expect(sorted(resolveLinks(next).statuses)).toEqual(sorted(full.statuses));
  // Once applied, the next pass changes nothing (a no-op sync after it rewrites no row).
  const applied = new Map([...next].map(([path, e]) => [path, restatus.has(path) ? withStatus(e, restatus.get(path)!) : e]));
  expect(linkChanges(applied).restatus.size).toBe(0);
}

describe('linkChanges', () => {
  it('equals the full pass on random manifests (chains, cycles, duplicate and cross-user ids, stale statuses)', () => {
    fc.assert(
      fc.property(manifest, (entries) => {
        expectSameAsFullPass(entries);
        expectSameAsFullPass(settled(entries));
      }),
      { numRuns: 500, seed: 13 },
    );
  });

  it('equals the full pass after random edits of a settled manifest (re-read, added, removed, touched files)', () => {
    fc.assert(
      fc.property(manifest, fc.array(anEdit, { maxLength: 5 }), (entries, edits) => expectSameAsFullPass(edited(settled(entries), edits))),
      { numRuns: 500, seed: 13 },
    );
  });

  it('does not depend on the clock: an expiry date passing changes no status (only `status: expired` in a file does)', () => {
    fc.assert(
      fc.property(manifest, (entries) => {
        const lapsed = new Map([...entries].map(([path, e]) => [path, { ...e, expires: NOW - DAY }]));
        const unset = new Map([...entries].map(([path, { expires: _gone, ...e }]) => [path, e]));
        expect(linkChanges(lapsed)).toEqual(linkChanges(entries));
        expect(linkChanges(unset)).toEqual(linkChanges(entries));
      }),
      { numRuns: 300, seed: 13 },
    );
  });

  it('reads a manifest without links once and looks nothing up; with links, looks up only what links', () => {
    class CountingMap<K, V> extends Map<K, V> {
      passes = 0;
      lookups = 0;
      override get(key: K): V | undefined {
        this.lookups++;
        return super.get(key);
      }
      override [Symbol.iterator](): MapIterator<[K, V]> {
        this.passes++;
        return super[Symbol.iterator]();
      }
      override entries(): MapIterator<[K, V]> {
        this.passes++;
        return super.entries();
      }
      override keys(): MapIterator<K> {
        this.passes++;
        return super.keys();
      }
      override values(): MapIterator<V> {
        this.passes++;
        return super.values();
      }
      override forEach(fn: (value: V, key: K, map: Map<K, V>) => void): void {
        this.passes++;
        super.forEach(fn);
      }
    }
    const plain = (i: number, more: Partial<ManifestEntry> = {}): [string, ManifestEntry] => [
      `alice/m${i}.md`,
      { size: 1, mtimeMs: 1, sha: 'x', memoryId: `m${i}`, user: 'alice', type: 'semantic', status: 'active', chunkCount: 1, ...more },
    ];
    const quiet = new CountingMap(Array.from({ length: 1000 }, (_, i) => plain(i)));
    expect(linkChanges(quiet)).toEqual({ restatus: new Map(), problems: [] });
    expect([quiet.passes, quiet.lookups]).toEqual([1, 0]);

    const chain = new CountingMap([
      ...Array.from({ length: 1000 }, (_, i) => plain(i)),
      plain(1000, { supersedes: 'm1' }),
      plain(1001, { supersedes: 'm1000' }),
    ]);
    expect(sorted(linkChanges(chain).restatus)).toEqual([
      ['alice/m1.md', 'superseded'],
      ['alice/m1000.md', 'superseded'],
    ]);
    expect(chain.passes).toBe(2);
    expect(chain.lookups).toBeLessThan(20);
  });

  it('a sync (no-op, an edit, a correction) passes over the links once and never makes every path status', async () => {
    const TREE = {
      'alice/semantic/berlin.md': '---\nid: berlin\n---\nAlice lives in Berlin.\n',
      'alice/semantic/tea.md': 'Alice likes green tea in the morning.\n\nShe drinks it cold in summer.\n',
    };
    const { root, deps, index } = await setup(TREE);
    await syncIndex(deps);
    vi.mocked(resolveLinks).mockClear();
    vi.mocked(linkChanges).mockClear();

    const noop = await syncIndex(deps);
    await edit(root, 'alice/semantic/tea.md', 'Alice likes green tea in the morning.\n\nShe drinks it cold in summer, 1.\n');
    const paragraph = await syncIndex(deps);
    await edit(root, 'alice/semantic/porto.md', '---\nid: porto\nsupersedes: berlin\n---\nAlice moved to Porto.\n');
    const correction = await syncIndex(deps);

    expect([noop.upserted, paragraph.upserted, correction.upserted]).toEqual([0, index.rowsOf('alice/semantic/tea.md').length, 2]);
    expect(index.rowsOf('alice/semantic/berlin.md').map((r) => r.status)).toEqual(['superseded']);
    expect(vi.mocked(linkChanges).mock.calls).toHaveLength(3);
    expect(vi.mocked(linkChanges).mock.results.map((r) => [...(r.value as links.LinkChanges).restatus])).toEqual([
      [],
      [],
      [['alice/semantic/berlin.md', 'superseded']],
    ]);
    expect(resolveLinks).not.toHaveBeenCalled();
  });
});
