// Forgets travel with `mem sync`, checked with real git on three clones of a bare remote, the real `bin/mem`, Milvus
// Lite and the model: a forget made on one machine leaves the other machines' files, index data and vector caches;
// after `forget --purge-history` on one machine, the others move their own commits onto the rewritten history and
// the forgotten text is in no file, git object, `.mem/` or server data of any clone or of the remote.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { objectsHolding, stateHolding } from '../support/byte-scan.js';
import { cachedVectors } from '../support/cached-vectors.js';
import { gitIn, machines, type Machines } from '../support/git-clones.js';

const ALL = ['laptop', 'desk', 'server'];
const FORGET = 'Ann keeps the garage remote in the blue kitchen drawer';
const PURGE = 'Ann’s safe combination is seventeen twenty-nine zebra';

describe('forgets travel between machines', () => {
  let m: Machines;
  /** The forgotten texts' bytes: the text, and its vector as the laptop cached it. */
  const needles: Record<string, Buffer[]> = {};
  const ids: Record<string, string> = {};

  async function add(text: string): Promise<void> {
    const before = new Set((await cachedVectors(m.roots.laptop!)).keys());
    const added = await m.mem('laptop', ['add', text, '-u', 'ann', '--json']);
    expect(added.json.action).toBe('ADD');
    const vectors = [...(await cachedVectors(m.roots.laptop!))].filter(([h]) => !before.has(h)).map(([, v]) => v.subarray(0, 64));
    ids[text] = added.json.id;
    needles[text] = [Buffer.from(text), ...vectors];
  }

  async function expectGoneEverywhere(text: string, fromGit: boolean): Promise<void> {
    for (const machine of ALL) {
      expect(await m.texts(machine)).not.toContain(text);
      expect(await stateHolding(m.roots[machine]!, needles[text]!)).toEqual([]);
      const search = await m.mem(machine, ['search', text, '-u', 'ann', '--history', '--json']);
      expect(search.json.results.map((r: { content: string }) => r.content)).not.toContain(text);
      if (fromGit) {
        expect(objectsHolding(m.roots[machine]!, text)).toBe(0);
        expect(objectsHolding(m.roots[machine]!, ids[text]!)).toBe(0);
      }
    }
    if (fromGit) expect(objectsHolding(m.remote, text)).toBe(0);
  }

  async function expectDoctorsClean(): Promise<void> {
    for (const machine of ALL) {
      const doctor = await m.mem(machine, ['doctor', '--json']);
      expect(doctor.json.problems, machine).toEqual([]);
      expect(doctor.code).toBe(0);
    }
  }

  beforeAll(async () => {
    m = await machines(ALL, { user: 'ann', text: 'Ann lives in Lyon with her two cats' });
    await add(FORGET);
    await add(PURGE);
    expect((await m.mem('laptop', ['sync', '--json'])).code).toBe(0);
    for (const machine of ['desk', 'server']) {
      const out = await m.mem(machine, ['sync', '--json']);
      expect(out.json.incoming.added).toHaveLength(2);
      // Each machine indexed the texts itself: its index data holds them until the forget reaches it.
      expect((await stateHolding(m.roots[machine]!, [Buffer.from(FORGET)])).length).toBeGreaterThan(0);
    }
  });
  afterAll(async () => {
    await m?.dispose();
  });

  it('a forget on one machine leaves every other machine’s files, index data and vector cache at its next sync', async () => {
    expect((await m.mem('laptop', ['forget', ids[FORGET]!, '--json'])).code).toBe(0);
    const out = await m.mem('laptop', ['sync', '--json']);
    expect(out.json.outgoing.commits).toBe(1);
    const synced = [await m.mem('desk', ['sync', '--json']), await m.mem('server', ['sync', '--json'])];
    // A plain forget keeps history: git still has the text (that is what --purge-history is for).
    await expectGoneEverywhere(FORGET, false);
    for (const inc of synced) {
      expect(inc.code).toBe(0);
      expect(inc.json.incoming).toMatchObject({ commits: 1, forgets: 1, added: [], deleted: [expect.stringContaining(ids[FORGET]!)] });
      expect(inc.json.index).toMatchObject({ embedded: 0, deleted: 1, purged: expect.stringMatching(/rebuilt|compacted/) });
    }
    await expectDoctorsClean();
  });

  it('after --purge-history on one machine, the others move their own commits onto the rewritten history and the text is gone everywhere', async () => {
    // The desk has a commit of its own that the remote has not seen yet.
    expect((await m.mem('desk', ['add', 'Ann plays the cello in an amateur orchestra', '-u', 'ann'])).code).toBe(0);
    const purge = await m.mem('laptop', ['forget', ids[PURGE]!, '--purge-history', '--yes', '--json']);
    expect(purge.json.verified.gitHits).toBe(0);

    const pushed = await m.mem('laptop', ['sync', '--json']);
    expect(pushed.code).toBe(0);
    expect(pushed.json.rewritten).toBe('local');
    const desk = await m.mem('desk', ['sync', '--json']);
    expect(desk.code).toBe(0);
    expect(desk.json).toMatchObject({ rewritten: 'remote', outgoing: { commits: 1 } });
    expect(desk.json.incoming.deleted).toEqual([expect.stringContaining(ids[PURGE]!)]);
    // The server's person fetched by hand first: the purge is already in its remote-tracking ref.
    gitIn(m.roots.server!, 'fetch', '-q', 'origin');
    const server = await m.mem('server', ['sync', '--json']);
    expect(server.json).toMatchObject({ rewritten: 'remote', outgoing: { commits: 0 } });
    const back = await m.mem('laptop', ['sync', '--json']);
    expect(back.json.incoming.added).toEqual([expect.stringMatching(/cello/)]);
    // The desk's commit is on the remote, on top of the rewritten history (one line of history, no old commit).
    expect(gitIn(m.remote, 'log', '--format=%s', 'main')).toContain('PURGE-HISTORY');
    for (const machine of ALL) expect(await m.texts(machine)).toContain('cello');

    await expectGoneEverywhere(PURGE, true);
    await expectDoctorsClean();
  });
});
