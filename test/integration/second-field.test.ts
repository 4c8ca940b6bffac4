// The second dense field (issue 12) on a real Milvus Lite: units carry it, a second-field search returns units
// only (windows hold a placeholder), and an index opened with the field switched the other way asks for a rebuild.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MilvusIndex } from '../../src/adapters/milvus/milvus-index.js';
import { ModelMismatchError } from '../../src/errors.js';
import type { IndexedChunk } from '../../src/services/ports.js';
import { indexRow } from '../support/index-row.js';
import { startOwnMilvusLite, type OwnMilvusLite } from '../support/own-milvus-lite.js';

const MODEL = { name: 'test-model', dimension: 4 };
const SECOND = { name: 'second-model', dimension: 3 };

function row(id: string, vector: number[], vector2: number[] | undefined, extra: Partial<IndexedChunk> = {}): IndexedChunk {
  return indexRow(id, 'alice', `text of ${id}`, vector, { ...(vector2 ? { vector2 } : {}), ...extra });
}

describe('the second dense field on Milvus Lite', () => {
  let lite: OwnMilvusLite | undefined;
  let address: string;
  let token: string;
  let index: MilvusIndex;

  beforeAll(async () => {
    lite = await startOwnMilvusLite();
    ({ address, token } = lite);
    index = new MilvusIndex({ address, token, collection: 'it_second', second: SECOND });
    await index.open(MODEL);
    await index.upsert([
      row('u1', [1, 0, 0, 0], [0, 1, 0]),
      row('u2', [0, 1, 0, 0], [1, 0, 0]),
      // A window gets the placeholder, which points the way the query below does: it must still not come back.
      row('w1', [1, 1, 0, 0], undefined, { kind: 'window', lineEnd: 2 }),
    ]);
  }, 120_000);

  afterAll(async () => {
    await index?.close();
    await lite?.stop();
  });

  const scope = { users: ['alice'], statuses: ['active' as const], notExpiredAt: 5000 };

  it('searches the second field, units only, cosine similarity as the score', async () => {
    const hits = await index.search({ mode: 'second', scope, queryVector: [1, 0, 0], limit: 10 });
    expect(hits.map((h) => h.record.chunkId)).toEqual(['u2', 'u1']);
    expect(hits[0]!.score).toBeCloseTo(1, 5);
    expect(hits[1]!.score).toBeCloseTo(0, 5);
  });

  it('finds units among many windows in a sealed segment', async () => {
    const windows = Array.from({ length: 300 }, (_, i) =>
      row(`cw${i}`, [0, 0, 1, 0], undefined, { kind: 'window', user: 'carol', lineStart: i, lineEnd: i + 1 }),
    );
    await index.insert([...windows, row('c1', [0, 0, 1, 0], [0, 0, 1], { user: 'carol' }), row('c2', [0, 0, 1, 0], [0, 1, 0], { user: 'carol' })]);
    await index.flush();
    const hits = await index.search({ mode: 'second', scope: { users: ['carol'] }, queryVector: [0, 0, 1], limit: 10 });
    expect(hits.map((h) => h.record.chunkId)).toEqual(['c1', 'c2']);
  });

  it('leaves the first dense field as it was', async () => {
    const hits = await index.search({ mode: 'dense', scope, queryVector: [1, 0, 0, 0], limit: 10 });
    expect(hits[0]!.record.chunkId).toBe('u1');
  });

  it('an index opened without the field, or with another model in it, asks for a rebuild', async () => {
    const without = new MilvusIndex({ address, token, collection: 'it_second' });
    await expect(without.open(MODEL)).rejects.toThrow(ModelMismatchError);
    await expect(without.open(MODEL)).rejects.toThrow(/second-model@3.*mem reindex --rebuild/);
    const other = new MilvusIndex({ address, token, collection: 'it_second', second: { name: 'other', dimension: 3 } });
    await expect(other.open(MODEL)).rejects.toThrow(ModelMismatchError);
    await without.close();
    await other.close();
  });
});
