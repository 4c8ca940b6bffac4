// memdir's own mpnet server is reached on first use: nothing is started before a text or query is embedded, one
// connection serves every call, and after a failure (the server stopped) the next call connects again.
import { describe, expect, it } from 'vitest';

import { OnDemandEmbedder } from '../../../../src/adapters/embedder/on-demand-embedder.js';
import { HashEmbedder } from '../../../support/fakes.js';

describe('OnDemandEmbedder', () => {
  it('connects on the first call only, and again after a failure', async () => {
    let connects = 0;
    let fail = false;
    const inner = new HashEmbedder(4, 'm');
    const embedder = new OnDemandEmbedder({ name: 'm', dimension: 4 }, async () => {
      connects++;
      return {
        identity: inner.identity,
        embedDocuments: (t: string[]) => (fail ? Promise.reject(new Error('down')) : inner.embedDocuments(t)),
        embedQuery: (t: string) => (fail ? Promise.reject(new Error('down')) : inner.embedQuery(t)),
      };
    });
    expect(connects).toBe(0);
    expect(embedder.identity).toEqual({ name: 'm', dimension: 4 });
    expect(await embedder.embedQuery('a')).toEqual(await inner.embedQuery('a'));
    await embedder.embedDocuments(['b', 'c']);
    expect(connects).toBe(1);
    fail = true;
    await expect(embedder.embedQuery('a')).rejects.toThrow('down');
    fail = false;
    await embedder.embedQuery('a');
    expect(connects).toBe(2);
  });

  it('a failed start is tried again on the next call', async () => {
    let attempts = 0;
    const embedder = new OnDemandEmbedder({ name: 'm', dimension: 4 }, async () => {
      if (++attempts === 1) throw new Error('could not start mpnet');
      return new HashEmbedder(4, 'm');
    });
    await expect(embedder.embedQuery('a')).rejects.toThrow('could not start mpnet');
    expect(await embedder.embedQuery('a')).toHaveLength(4);
    expect(attempts).toBe(2);
  });
});
