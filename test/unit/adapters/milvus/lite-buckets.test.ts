// Milvus Lite's partition-key buckets: the same bucket as its own hash (values computed with Python's hashlib,
// as milvus_lite does), and narrowing only over a collection whose partitions are exactly those buckets.
import { describe, expect, it } from 'vitest';

import { hasLiteBuckets, liteBucket } from '../../../../src/adapters/milvus/lite-buckets.js';

describe('liteBucket', () => {
  it("names the bucket Milvus Lite puts a user's rows in (md5 of the UTF-8 key, modulo 16)", () => {
    // int(hashlib.md5(user.encode()).hexdigest(), 16) % 16
    const python: Record<string, number> = { alice: 12, bob: 8, 'chen.wei': 15, 'li.na': 9, 'user-42': 3, élodie: 7 };
    for (const [user, bucket] of Object.entries(python)) expect(liteBucket(user)).toBe(`_pk_${bucket}`);
  });
});

describe('hasLiteBuckets', () => {
  const buckets = Array.from({ length: 16 }, (_, i) => `_pk_${i}`);
  it('accepts the default partition and the 16 buckets, in any order', () => {
    expect(hasLiteBuckets(['_default', ...buckets].reverse())).toBe(true);
  });
  it('refuses any other layout: another bucket count, manual partitions, none', () => {
    expect(hasLiteBuckets(['_default', ...buckets.slice(0, 8)])).toBe(false);
    expect(hasLiteBuckets(['_default', ...buckets, '_pk_16'])).toBe(false);
    expect(hasLiteBuckets(['_default', 'alice'])).toBe(false);
    expect(hasLiteBuckets([])).toBe(false);
  });
});
