// The `/rerank` adapter against a real local HTTP server: both answer shapes, the key, and that every
// failure (status, timeout, a malformed answer) is an error the search stage can fall back from.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { HttpReranker, scoresOf } from '../../../../src/adapters/rerank/http-reranker.js';
import { LlmError } from '../../../../src/errors.js';
import { startFakeRerank, type FakeRerankServer } from '../../../support/fake-rerank-server.js';

// Relevance = share of the query's words in the document.
const overlap = (query: string, doc: string) => {
  const words = query.toLowerCase().split(/\W+/).filter(Boolean);
  return words.filter((w) => doc.toLowerCase().includes(w)).length / words.length;
};

describe('HttpReranker', () => {
  let server: FakeRerankServer;
  beforeAll(async () => {
    server = await startFakeRerank({ kind: 'scores', score: overlap });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('sends query, documents, model and key; returns one score per document in the documents order', async () => {
    const reranker = new HttpReranker({ url: server.url, model: 'bge-reranker', apiKey: 'k-1', timeoutMs: 2_000 });
    const scores = await reranker.rerank('alice violin', ['bob plays chess', 'alice learns the violin', 'alice']);
    expect(scores).toEqual([0, 1, 0.5]);
    const last = server.requests.at(-1)!;
    expect(last.body).toEqual({ model: 'bge-reranker', query: 'alice violin', documents: ['bob plays chess', 'alice learns the violin', 'alice'], top_n: 3 });
    expect(last.authorization).toBe('Bearer k-1');
  });

  it("reads Text Embeddings Inference's bare list too", async () => {
    server.behave({ kind: 'scores', score: overlap, shape: 'tei' });
    expect(await new HttpReranker({ url: server.url, timeoutMs: 2_000 }).rerank('tea', ['coffee', 'green tea'])).toEqual([0, 1]);
    expect(server.requests.at(-1)!.body.model).toBeUndefined();
  });

  it('an error status, a timeout and a malformed answer are errors', async () => {
    const reranker = new HttpReranker({ url: server.url, timeoutMs: 300 });
    server.behave({ kind: 'status', status: 503 });
    await expect(reranker.rerank('q', ['a'])).rejects.toThrow(/HTTP 503/);
    server.behave({ kind: 'hang' });
    const started = Date.now();
    await expect(reranker.rerank('q', ['a'])).rejects.toBeInstanceOf(LlmError);
    expect(Date.now() - started).toBeLessThan(2_000);
    server.behave({ kind: 'raw', body: { results: [{ index: 5, relevance_score: 0.3 }] } });
    // A timeout of its own: at a load of 12 the 300 ms one above expired before the fake server's answer came.
    await expect(new HttpReranker({ url: server.url, timeoutMs: 10_000 }).rerank('q', ['a'])).rejects.toThrow(/invalid result/);
  });

  it('sends nothing for no documents', async () => {
    const before = server.requests.length;
    expect(await new HttpReranker({ url: server.url, timeoutMs: 300 }).rerank('q', [])).toEqual([]);
    expect(server.requests.length).toBe(before);
  });
});

describe('scoresOf', () => {
  it('needs a score for every document', () => {
    expect(() => scoresOf({ results: [{ index: 0, relevance_score: 0.2 }] }, 2)).toThrow(/1 of 2/);
    expect(() => scoresOf({ nothing: true }, 1)).toThrow(/no results list/);
    expect(
      scoresOf(
        [
          { index: 1, score: 2.5 },
          { index: 0, score: -1 },
        ],
        2,
      ),
    ).toEqual([-1, 2.5]);
  });
});
