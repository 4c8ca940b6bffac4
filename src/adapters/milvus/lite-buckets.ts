// Milvus Lite's partition-key buckets. It hashes the partition key (the user) into 16 partitions named `_pk_<n>`
// (md5 of the key, modulo 16: milvus_lite/engine/collection.py, _insert_with_partition_key), but, unlike Milvus,
// a search never narrows itself to the buckets its filter names: each one walks every user's rows in Python
// (per-row dedup and tombstone checks), about 200 ms at 41,000 rows. Naming the users' buckets does it.
import { createHash } from 'node:crypto';

const BUCKETS = 16;
const PREFIX = '_pk_';

/** The bucket partition that holds this user's rows in Milvus Lite. */
export function liteBucket(user: string): string {
  const digest = createHash('md5').update(user, 'utf8').digest('hex');
  return `${PREFIX}${Number(BigInt(`0x${digest}`) % BigInt(BUCKETS))}`;
}

/** Whether a collection's partitions are exactly Milvus Lite's buckets (and its default partition), so narrowing is safe. */
export function hasLiteBuckets(partitions: string[]): boolean {
  const expected = new Set(['_default', ...Array.from({ length: BUCKETS }, (_, i) => `${PREFIX}${i}`)]);
  return partitions.length === expected.size && partitions.every((p) => expected.has(p));
}
