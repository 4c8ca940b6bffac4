// One index row for pure retrieval tests: a unit of user `u` with neutral lifecycle fields; tests name what matters.
import { NO_EXPIRY } from '../../src/memory/records.js';
import type { FusedCandidate } from '../../src/services/retrieval/fuse.js';
import type { IndexHit, IndexedChunk } from '../../src/services/ports.js';

export type HitRecord = IndexHit['record'];

/** A unit row with id `id` (also its memory id, file `<id>.md` and text) unless `fields` says otherwise. */
export function hitRecord(id: string, fields: Partial<HitRecord> = {}): HitRecord {
  return {
    chunkId: id,
    kind: 'unit',
    memoryId: id,
    user: 'u',
    type: 'semantic',
    status: 'active',
    importance: 0.5,
    created: 0,
    updated: 0,
    expires: NO_EXPIRY,
    path: `${id}.md`,
    heading: '',
    lineStart: 1,
    lineEnd: 1,
    tags: [],
    content: id,
    ...fields,
  };
}

/** A fused candidate whose hit score and relevance are both `relevance`. */
export function candidate(relevance: number, record: HitRecord): FusedCandidate {
  return { relevance, hit: { score: relevance, record } };
}

/** A row to write for index-call tests: unit `c<i>` of user `ann`, memory `m<i>` (fields override), a 3-dimension vector. */
export function indexedRow(i: number, fields: Partial<IndexedChunk> = {}): IndexedChunk {
  const record = hitRecord(`c${i}`, {
    memoryId: `m${i}`,
    user: 'ann',
    created: 1,
    updated: 2,
    expires: 0,
    path: `ann/semantic/m${i}.md`,
    content: `text ${i}`,
  });
  return { ...record, textHash: `h${i}`, vector: [1, 0, 0], ...fields };
}
