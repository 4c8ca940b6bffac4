// A root's collection in the shared Milvus Lite follows the root: the same after a move on disk, a new one for a
// copy whose original is still in place (two roots must never share rows). Real folders, no servers.
import { cp, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { rootCollection } from '../../src/adapters/runtime/root-identity.js';
import { dropReplacedCollections, listRoots, registerRoot, releaseRoot } from '../../src/adapters/runtime/root-registry.js';
import { serverLayout, stateLayout } from '../../src/memory/layout.js';
import { tempRoot } from '../support/temp-root.js';

describe('root identity and the registry of roots', () => {
  let base: string;
  beforeAll(async () => {
    base = await tempRoot({ 'one/ann/semantic/tea.md': 'Ann drinks green tea.\n' }, 'memdir-it-root-id-');
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('keeps a moved root in its collection, gives a copy its own, and reports a deleted root as an orphan', async () => {
    const servers = serverLayout(join(base, 'home'));
    const one = join(base, 'one');
    const first = await rootCollection(stateLayout(one), one, servers);
    expect(first).toEqual({ collection: expect.stringMatching(/^memdir_[0-9a-f]{16}$/), minted: false, created: true });
    const known = { ...first, created: false };
    expect(await rootCollection(stateLayout(one), one, servers)).toEqual(known);
    await registerRoot(servers, { collection: first.collection, root: one, stateDir: stateLayout(one).dir });

    // Moved: the id moves with it, the registry follows on its next use.
    const moved = join(base, 'moved');
    await rename(one, moved);
    expect((await listRoots(servers)).map((r) => r.state)).toEqual(['orphan']);
    expect(await rootCollection(stateLayout(moved), moved, servers)).toEqual(known);
    await registerRoot(servers, { collection: first.collection, root: moved, stateDir: stateLayout(moved).dir });
    expect((await listRoots(servers)).map((r) => [r.root, r.state])).toEqual([[moved, 'active']]);

    // Copied while the original stays: the copy gets a new id (and its index is built anew).
    const copy = join(base, 'copy');
    await cp(moved, copy, { recursive: true });
    const copied = await rootCollection(stateLayout(copy), copy, servers);
    expect(copied.minted).toBe(true);
    expect(copied.collection).not.toBe(first.collection);
    expect((await readFile(stateLayout(copy).rootId, 'utf8')).trim()).toBe(copied.collection.slice('memdir_'.length));
    expect(await rootCollection(stateLayout(moved), moved, servers)).toEqual(known);

    // The copy's `.mem/` deleted: a new id again, and its old entry, once registered, is an orphan.
    await registerRoot(servers, { collection: copied.collection, root: copy, stateDir: stateLayout(copy).dir });
    await rm(stateLayout(copy).dir, { recursive: true, force: true });
    const renewed = await rootCollection(stateLayout(copy), copy, servers);
    expect(renewed.collection).not.toBe(copied.collection);
    expect((await listRoots(servers)).find((r) => r.collection === copied.collection)?.state).toBe('orphan');
    // Made anew, so the collection of the earlier id (the memories' text, reached by no command now) is dropped.
    expect(renewed.created).toBe(true);
    const dropped: string[] = [];
    const drop = async (name: string) => void dropped.push(name);
    expect(await dropReplacedCollections(servers, copy, renewed.collection, drop)).toEqual([copied.collection]);
    expect(dropped).toEqual([copied.collection]);
    expect((await listRoots(servers)).map((r) => r.collection)).not.toContain(copied.collection);
    // The moved root's collection is another path's: left alone.
    expect((await listRoots(servers)).map((r) => r.collection)).toContain(first.collection);
    await rm(copy, { recursive: true, force: true });

    // Released by `mem server stop`, then deleted on disk: reported, not active.
    await releaseRoot(servers, first.collection);
    const stateOf = async (collection: string) => (await listRoots(servers)).find((r) => r.collection === collection)?.state;
    expect(await stateOf(first.collection)).toBe('released');
    await rm(moved, { recursive: true, force: true });
    expect(await stateOf(first.collection)).toBe('orphan');
  });
});
