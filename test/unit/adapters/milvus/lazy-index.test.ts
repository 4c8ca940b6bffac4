// Covers LazyMilvusIndex without a server: it names its location as MilvusIndex does and closes without loading anything.
import { describe, expect, it } from 'vitest';

import { LazyMilvusIndex } from '../../../../src/adapters/milvus/lazy-index.js';
import { MilvusIndex } from '../../../../src/adapters/milvus/milvus-index.js';

describe('LazyMilvusIndex', () => {
  it('has the location of the index it stands for (manifests are named by it), and closes unloaded', async () => {
    const options = { address: '127.0.0.1:1', collection: 'memdir_test' };
    const lazy = new LazyMilvusIndex(options);
    expect(lazy.location).toBe(new MilvusIndex(options).location);
    await expect(lazy.close()).resolves.toBeUndefined();
  });
});
