// What memdir relies on from a Milvus, proved against any one: MILVUS_URI (+ MILVUS_TOKEN) with
// `npm run test:milvus`, or in `npm test` a Milvus Lite server this file starts and reaches as a remote one.
// Every step is a new `bin/mem` process, as a user runs it; each run uses collections of its own and drops them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MilvusIndex } from '../../src/adapters/milvus/milvus-index.js';
import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { startRecorder, type Recorder } from '../support/grpc-recorder.js';
import { runMem, type MemRun } from '../support/harness.js';
import { indexRow } from '../support/index-row.js';
import { SKIP_REASON, collectionExists, dropCollection, startMilvusTarget, uniqueCollection, type MilvusTarget } from '../support/milvus-target.js';

type Hit = { id: string; user: string; status: string; content: string; scores: { dense?: number; bm25?: number } };
const hits = (run: MemRun): Hit[] => run.json.results;
/** The best hit (the test fails here, naming the run's output, if there is none). */
const top = (run: MemRun): Hit => hits(run)[0] ?? expect.fail(`no result: ${run.stdout}${run.stderr}`);
/** Skipped suites say why in their name, which is what the test report shows. */
const titled = (what: string) => (SKIP_REASON ? `${what} (${SKIP_REASON})` : what);
// The default reporter names no skipped test: say it where the person running `npm run test:milvus` looks.
if (SKIP_REASON) console.warn(`Milvus contract suite ${SKIP_REASON}`);

const FILES = {
  'ann/semantic/pet.md': 'Ann has a grey cat called Miso.\n',
  'ann/semantic/ticket.md': 'Ann tracks the broken boiler under ticket QX-5521 with the landlord.\n',
  'bob/semantic/pet.md': 'Bob has a brown dog called Pretzel.\n',
};

describe.skipIf(SKIP_REASON)(titled('a Milvus reached by MILVUS_URI'), () => {
  let target: MilvusTarget;
  let root: string;
  let env: Record<string, string>;
  const collection = uniqueCollection('contract');
  const mem = (args: string[]) => runMem([...args, '--json'], { root, env });

  beforeAll(async () => {
    target = await startMilvusTarget();
    root = await e2eRoot(FILES, 'memdir-it-any-milvus-');
    env = { MILVUS_URI: target.uri, ...(target.token ? { MILVUS_TOKEN: target.token } : {}), MEM_COLLECTION: collection };
  });
  afterAll(async () => {
    if (target) await dropCollection(target, collection);
    await disposeE2eRoot(root);
    await target?.stop();
  });

  it('creates the collection on first use, then opens the same one again', async () => {
    expect(await collectionExists(target, collection)).toBe(false);
    const first = await mem(['reindex']);
    expect(first.json).toMatchObject({ files: 3, chunks: 3, upserted: 3, errors: [] });
    expect(await collectionExists(target, collection)).toBe(true);
    const again = await mem(['reindex']);
    expect(again.json).toMatchObject({ files: 3, embedded: 0, upserted: 0, deleted: 0, errors: [] });
    const status = await mem(['status']);
    expect(status.json.index).toBe(`${target.uri} (collection ${collection})`);
    expect(status.json.indexRows).toBe(3);
    expect(status.json.drift.inSync).toBe(true);
  });

  it('read-your-writes: a memory added by one process is found by the next at once', async () => {
    const added = await mem(['add', 'Ann is learning the cello with a teacher in Lyon', '--user', 'ann']);
    expect(added.json).toMatchObject({ action: 'ADD', user: 'ann' });
    const found = await mem(['search', 'which instrument is Ann learning?', '--user', 'ann']);
    expect(top(found).id).toBe(added.json.id);
    expect((await mem(['status'])).json.indexRows).toBe(4);
  });

  it('hybrid search: BM25 finds an exact token, the dense vectors find a paraphrase with no word in common', async () => {
    const byToken = await mem(['search', 'QX-5521', '--user', 'ann']);
    expect(top(byToken).content).toContain('QX-5521');
    expect(top(byToken).scores.bm25).toBeGreaterThan(0);
    const byMeaning = await mem(['search', 'kitten', '--user', 'ann']);
    expect(top(byMeaning).content).toContain('Miso');
    expect(top(byMeaning).scores.dense).toBeGreaterThan(0);
    expect(top(byMeaning).scores.bm25).toBeUndefined();
  });

  it('user isolation under the partition key: a search sees only its own user, whatever it asks', async () => {
    const bob = await mem(['search', 'grey cat called Miso', '--user', 'bob', '-k', '10']);
    expect(hits(bob).length).toBeGreaterThan(0);
    expect(hits(bob).every((h) => h.user === 'bob')).toBe(true);
    const ann = await mem(['search', 'brown dog called Pretzel', '--user', 'ann', '-k', '10']);
    expect(hits(ann).map((h) => h.user)).not.toContain('bob');
    expect(
      hits(ann)
        .map((h) => h.content)
        .join('\n'),
    ).not.toContain('Pretzel');
    const nobody = await mem(['search', 'cat', '--user', 'carol']);
    expect(hits(nobody)).toEqual([]);
  });

  it('a correction (supersedes) hides the old memory from the next search; --history still shows it, superseded', async () => {
    const old = await mem(['add', 'Ann lives in Munich', '--user', 'ann', '--key', 'residence']);
    const now = await mem(['add', 'Ann moved to Berlin', '--user', 'ann', '--key', 'residence']);
    expect(now.json).toMatchObject({ action: 'SUPERSEDE', supersedes: old.json.id });
    const search = await mem(['search', 'where does Ann live? Munich or Berlin?', '--user', 'ann']);
    expect(top(search).id).toBe(now.json.id);
    expect(hits(search).map((h) => h.id)).not.toContain(old.json.id);
    const history = await mem(['search', 'where does Ann live? Munich or Berlin?', '--user', 'ann', '--history']);
    expect(hits(history).find((h) => h.id === old.json.id)?.status).toBe('superseded');
  });

  it('forget deletes the rows and asks the server to compact (a remote Milvus compacts; memdir does not rebuild it)', async () => {
    const cello = await mem(['search', 'cello', '--user', 'ann']);
    const id = top(cello).id;
    const rowsBefore = (await mem(['status'])).json.indexRows;
    const forgot = await mem(['forget', id, '--reason', 'test']);
    expect(forgot.code).toBe(0);
    expect(forgot.json.removed.map((r: { id: string }) => r.id)).toEqual([id]);
    expect(forgot.json.verified.indexRows).toBe(0);
    // 'compacted' when the server finished within a minute, 'requested' when it still runs; never 'rebuilt' (Lite only).
    expect(['compacted', 'requested']).toContain(forgot.json.verified.index);
    expect((await mem(['status'])).json.indexRows).toBe(rowsBefore - 1);
    const after = await mem(['search', 'which instrument is Ann learning? cello', '--user', 'ann', '-k', '10']);
    expect(hits(after).map((h) => h.id)).not.toContain(id);
  });

  it('reindex --rebuild drops the collection and loads it again from the vector cache: nothing is embedded', async () => {
    const rows = (await mem(['status'])).json.indexRows;
    const rebuilt = await mem(['reindex', '--rebuild']);
    expect(rebuilt.json).toMatchObject({ embedded: 0, upserted: rows, errors: [] });
    expect((await mem(['status'])).json.indexRows).toBe(rows);
    expect(top(await mem(['search', 'QX-5521', '--user', 'ann'])).content).toContain('QX-5521');
  });

  it('drop: the collection is gone from the server, and the next command creates it again from the files', async () => {
    const index = new MilvusIndex({ address: target.uri, ...(target.token ? { token: target.token } : {}), collection });
    await index.drop();
    await index.close();
    expect(await collectionExists(target, collection)).toBe(false);
    const rebuilt = await mem(['reindex', '--rebuild']);
    expect(rebuilt.json).toMatchObject({ embedded: 0, errors: [] });
    expect(await collectionExists(target, collection)).toBe(true);
  });
});

describe.skipIf(SKIP_REASON)(titled('moving an embedded index to a Milvus reached by MILVUS_URI'), () => {
  let target: MilvusTarget;
  let root: string;
  const collection = uniqueCollection('moved');

  beforeAll(async () => {
    target = await startMilvusTarget();
    root = await e2eRoot(FILES, 'memdir-it-move-');
  });
  afterAll(async () => {
    if (target) await dropCollection(target, collection);
    await disposeE2eRoot(root);
    await target?.stop();
  });

  it('MILVUS_URI=… mem reindex --rebuild bulk-loads the root from its vector cache: 0 texts embedded', async () => {
    // The root as a user has it today: indexed into its own embedded Milvus Lite.
    const embedded = await runMem(['reindex', '--json'], { root });
    expect(embedded.json).toMatchObject({ files: 3, chunks: 3, errors: [] });
    const env = { MILVUS_URI: target.uri, ...(target.token ? { MILVUS_TOKEN: target.token } : {}), MEM_COLLECTION: collection };
    const moved = await runMem(['reindex', '--rebuild', '--json'], { root, env });
    expect(moved.json).toMatchObject({ files: 3, chunks: 3, embedded: 0, upserted: 3, errors: [] });
    const status = await runMem(['status', '--json'], { root, env });
    expect(status.json).toMatchObject({ index: `${target.uri} (collection ${collection})`, indexRows: 3 });
    expect(status.json.drift.inSync).toBe(true);
    const found = await runMem(['search', 'what pet does Ann have', '--user', 'ann', '--json'], { root, env });
    expect(found.json.results[0].content).toContain('Miso');
  });
});

describe.skipIf(SKIP_REASON)(titled('the consistency level of every read memdir sends to a Milvus reached by MILVUS_URI'), () => {
  let target: MilvusTarget;
  let recorder: Recorder;
  let index: MilvusIndex;
  const collection = uniqueCollection('reads');

  beforeAll(async () => {
    target = await startMilvusTarget();
    // Between memdir and the server: Milvus Lite accepts any level, so the requests themselves are what is checked.
    recorder = await startRecorder(target.uri);
    index = new MilvusIndex({ address: recorder.address, ...(target.token ? { token: target.token } : {}), collection });
  });
  afterAll(async () => {
    await index?.close();
    if (target) await dropCollection(target, collection);
    await recorder?.stop();
    await target?.stop();
  });

  it('search (dense and BM25), count and the row scan all ask for Strong, and see a row written just before', async () => {
    await index.open({ name: 'consistency-test', dimension: 4 });
    const path = 'ann/semantic/tea.md';
    await index.upsert([indexRow('c0ffee', 'ann', 'Ann drinks sencha every morning.', [1, 0, 0, 0], { memoryId: 'tea', path })]);
    const dense = await index.search({ mode: 'dense', scope: { users: ['ann'] }, queryVector: [1, 0, 0, 0], limit: 5 });
    const bm25 = await index.search({ mode: 'bm25', scope: { users: ['ann'] }, queryText: 'sencha', limit: 5 });
    expect(dense.map((h) => h.record.chunkId)).toEqual(['c0ffee']);
    expect(bm25.map((h) => h.record.chunkId)).toEqual(['c0ffee']);
    expect(await index.count({ users: 'all' })).toBe(1);
    expect(await index.listChunks()).toEqual([{ chunkId: 'c0ffee', path }]);

    const reads = recorder.calls.filter((c) => ['Search', 'HybridSearch', 'Query'].includes(c.method));
    // Two searches, the count, and the scan's 16 prefix queries.
    expect(reads.filter((c) => c.method === 'Search')).toHaveLength(2);
    expect(reads.filter((c) => c.method === 'Query').length).toBeGreaterThanOrEqual(17);
    // use_default_consistency false: the server takes the request's level, not the collection's (Bounded).
    const levels = reads.map((c) => ({ method: c.method, level: c.request.consistency_level, useDefault: c.request.use_default_consistency }));
    expect(levels).toEqual(reads.map((c) => ({ method: c.method, level: 'Strong', useDefault: false })));
  });
});
