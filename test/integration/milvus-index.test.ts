// MilvusIndex against a real Milvus Lite server: schema, scoped search in all modes, deletes, model identity.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MilvusIndex } from '../../src/adapters/milvus/milvus-index.js';
import { ModelMismatchError } from '../../src/errors.js';
import { indexRow as row } from '../support/index-row.js';
import { startOwnMilvusLite, type OwnMilvusLite } from '../support/own-milvus-lite.js';

const MODEL = { name: 'test-model', dimension: 4 };

describe('MilvusIndex on Milvus Lite', () => {
  let lite: OwnMilvusLite | undefined;
  let address: string;
  let token: string;
  let index: MilvusIndex;

  beforeAll(async () => {
    lite = await startOwnMilvusLite();
    ({ address, token } = lite);
    index = new MilvusIndex({ address, token, collection: 'it_index' });
    await index.open(MODEL);
    await index.upsert([
      row('a1', 'alice', 'Alice moved to Berlin in 2024', [1, 0, 0, 0]),
      row('a2', 'alice', 'Alice likes hiking in the Alps', [0, 1, 0, 0], { expires: 1000 }),
      row('a3', 'alice', 'Alice used to live in Berlin suburbs', [0.9, 0.1, 0, 0], { status: 'superseded' }),
      row('b1', 'bob', 'Bob lives in Berlin too', [1, 0, 0, 0]),
      row('b2', 'bob', '用户明确表示不接受股票类高风险产品', [0, 0, 1, 0]),
    ]);
  });

  afterAll(async () => {
    await index?.close();
    await lite?.stop();
  });

  const aliceActive = { users: ['alice'], statuses: ['active' as const], notExpiredAt: 5000 };

  it('dense search returns only the scoped user’s eligible rows, cosine similarity as the score', async () => {
    const hits = await index.search({ mode: 'dense', scope: aliceActive, queryVector: [1, 0, 0, 0], limit: 10 });
    expect(hits.map((h) => h.record.chunkId)).toEqual(['a1']);
    expect(hits[0]!.score).toBeCloseTo(1, 3);
  });

  it('BM25 search returns only the scoped user’s eligible rows, better matches scoring higher', async () => {
    const hits = await index.search({ mode: 'bm25', scope: aliceActive, queryText: 'Berlin', limit: 10 });
    expect(hits.map((h) => h.record.chunkId)).toEqual(['a1']);
    expect(hits[0]!.score).toBeGreaterThan(0);
    const all = await index.search({ mode: 'bm25', scope: { users: 'all' }, queryText: 'Alice Berlin', limit: 10 });
    // "Alice moved to Berlin" shares both terms; "Bob lives in Berlin" one: the sign is "higher is better".
    const score = (id: string) => all.find((h) => h.record.chunkId === id)!.score;
    expect(score('a1')).toBeGreaterThan(score('b1'));
  });

  it('finds Chinese text through BM25 with a jieba analyzer', async () => {
    const hits = await index.search({
      mode: 'bm25',
      scope: { users: ['bob'] },
      queryText: '股票产品',
      limit: 5,
    });
    expect(hits.map((h) => h.record.chunkId)).toEqual(['b2']);
  });

  it('a hostile user id in a scope is refused, never widened', async () => {
    await expect(index.search({ mode: 'dense', scope: { users: ['alice" or user != "x'] }, queryVector: [1, 0, 0, 0], limit: 10 })).rejects.toThrow(
      /invalid user id/,
    );
  });

  it('counts, lists paths and deletes stale chunks of one path', async () => {
    expect(await index.count({ users: 'all' })).toBe(5);
    expect((await index.listPaths()).sort()).toEqual([
      'alice/semantic/a1.md',
      'alice/semantic/a2.md',
      'alice/semantic/a3.md',
      'bob/semantic/b1.md',
      'bob/semantic/b2.md',
    ]);
    expect((await index.listChunks()).sort((x, y) => x.chunkId.localeCompare(y.chunkId))).toEqual(
      ['a1', 'a2', 'a3', 'b1', 'b2'].map((id) => ({ chunkId: id, path: `${id[0] === 'a' ? 'alice' : 'bob'}/semantic/${id}.md` })),
    );
    await index.upsert([row('a1b', 'alice', 'Second chunk of a1', [0, 0, 0, 1], { path: 'alice/semantic/a1.md' })]);
    await index.deleteStale(['alice/semantic/a1.md', 'alice/semantic/a2.md'], ['a1b', 'a2']);
    expect(await index.count({ users: ['alice'], paths: ['alice/semantic/a1.md'] })).toBe(1);
    await index.delete({ users: ['bob'] });
    expect(await index.count({ users: 'all' })).toBe(3);
  });

  it('refuses to open an index built with another embedding model', async () => {
    const other = new MilvusIndex({ address, token, collection: 'it_index' });
    await expect(other.open({ name: 'another-model', dimension: 4 })).rejects.toBeInstanceOf(ModelMismatchError);
    await expect(other.open({ name: 'another-model', dimension: 4 })).rejects.toThrow(/mem reindex --rebuild/);
    await other.close();
  });

  it('names each collection it creates with an instance id that a reopen returns and a re-creation changes', async () => {
    const first = new MilvusIndex({ address, token, collection: 'it_instance' });
    const id = await first.open(MODEL);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const again = new MilvusIndex({ address, token, collection: 'it_instance' });
    expect(await again.open(MODEL)).toBe(id);
    await again.drop();
    const created = new MilvusIndex({ address, token, collection: 'it_instance' });
    const other = await created.open(MODEL);
    expect(other).toMatch(/^[0-9a-f-]{36}$/);
    expect(other).not.toBe(id);
    await created.drop();
    for (const i of [first, again, created]) await i.close();
  });

  it('an index opened before another client re-created its collection remembers the old instance until asked to recheck', async () => {
    const daemon = new MilvusIndex({ address, token, collection: 'it_recheck' });
    const before = await daemon.open(MODEL);
    const purge = new MilvusIndex({ address, token, collection: 'it_recheck' });
    await purge.open(MODEL);
    await purge.drop();
    const after = await purge.open(MODEL);
    expect(after).not.toBe(before);
    // Cheap reopen: from memory (a search opens its index every time).
    expect(await daemon.open(MODEL)).toBe(before);
    expect(await daemon.open(MODEL, { recheck: true })).toBe(after);
    expect(await daemon.open(MODEL)).toBe(after);
    await purge.drop();
    for (const i of [daemon, purge]) await i.close();
  });

  it('searches units unless windows are asked for, and lists the units lying inside a window', async () => {
    const path = 'carol/episodic/log.md';
    const lines = (lineStart: number, lineEnd: number) => ({ path, lineStart, lineEnd });
    await index.upsert([
      row('c1', 'carol', 'carol asked where the keys are', [1, 0, 0, 0], lines(3, 3)),
      row('c2', 'carol', 'the answer: under the mat', [0, 1, 0, 0], lines(5, 5)),
      row('c3', 'carol', 'then we talked about lunch', [0, 0, 1, 0], lines(7, 7)),
      row('cw', 'carol', 'carol asked where the keys are; the answer: under the mat', [1, 1, 0, 0], { ...lines(3, 5), kind: 'window' }),
    ]);
    const scope = { users: ['carol'] };
    const units = await index.search({ mode: 'bm25', scope, queryText: 'keys answer', limit: 10 });
    expect(units.map((h) => [h.record.chunkId, h.record.kind]).sort()).toEqual([
      ['c1', 'unit'],
      ['c2', 'unit'],
    ]);
    const windows = await index.search({ mode: 'dense', scope, queryVector: [1, 1, 0, 0], limit: 10, kind: 'window' });
    expect(windows.map((h) => [h.record.chunkId, h.record.kind])).toEqual([['cw', 'window']]);
    // A window is a signal, never shown: its text is not fetched.
    expect(windows[0]!.record.content).toBe('');
    const inside = await index.unitsWithin(scope, [lines(3, 5)], 10);
    expect(inside.map((r) => r.chunkId).sort()).toEqual(['c1', 'c2']);
    expect(await index.unitsWithin({ users: ['alice'] }, [lines(3, 5)], 10)).toEqual([]);
  });

  it("narrows an embedded index's searches to the users' buckets and finds what a search of every partition finds", async () => {
    const users = Array.from({ length: 12 }, (_, i) => `bucket-user-${i}`);
    await index.upsert(
      users.flatMap((user, i) => [
        row(`b${i}x`, user, `${user} keeps the spare key in the drawer`, [1, i / 12, 0, 0]),
        row(`b${i}y`, user, `${user} waters the plants on Sunday`, [0, 1, i / 12, 0], { lineStart: 3, lineEnd: 3 }),
      ]),
    );
    const narrowed = new MilvusIndex({ address, token, collection: 'it_index', embedded: true });
    await narrowed.open(MODEL);
    try {
      const ids = (hits: { record: { chunkId: string } }[]) => hits.map((h) => h.record.chunkId);
      for (const [i, user] of users.entries()) {
        for (const scope of [{ users: [user] }, { users: [user, users[(i + 5) % users.length]!] }]) {
          const dense = { mode: 'dense' as const, scope, queryVector: [1, 1, 0, 0], limit: 10 };
          const bm25 = { mode: 'bm25' as const, scope, queryText: 'spare key plants', limit: 10 };
          expect(ids(await narrowed.search(dense))).toEqual(ids(await index.search(dense)));
          expect(ids(await narrowed.search(bm25))).toEqual(ids(await index.search(bm25)));
          expect((await narrowed.search(dense)).length).toBe(2 * scope.users.length);
        }
        const spans = [{ path: `${user}/semantic/b${i}y.md`, lineStart: 1, lineEnd: 5 }];
        expect((await narrowed.unitsWithin({ users: [user] }, spans, 10)).map((r) => r.chunkId)).toEqual([`b${i}y`]);
      }
    } finally {
      await narrowed.close();
    }
  });
});
