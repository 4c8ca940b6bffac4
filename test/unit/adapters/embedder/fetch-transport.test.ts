// Covers OpenAIEmbedder's 'fetch' transport (memdir's own local server) against the 'sdk' one, on a real local HTTP
// server: the same request on the wire, the same vectors, and every failure worded and retried as the SDK's.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { OpenAIEmbedder } from '../../../../src/adapters/embedder/openai-embedder.js';
import { statusMessage } from '../../../../src/adapters/embedder/fetch-embeddings.js';
import { EmbeddingError } from '../../../../src/errors.js';

// Every import of the SDK goes through this factory.
const imported = vi.hoisted(() => ({ openai: 0 }));
vi.mock('openai', async (original) => {
  imported.openai++;
  return original();
});

type Behaviour = { kind: 'ok' } | { kind: 'status'; status: number; body: string } | { kind: 'hang' };

interface Seen {
  url: string;
  authorization: string | undefined;
  body: unknown;
}

describe("OpenAIEmbedder's fetch transport", () => {
  let server: Server;
  let baseURL: string;
  let behaviour: Behaviour = { kind: 'ok' };
  const seen: Seen[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c));
      req.on('end', () => {
        const body = JSON.parse(text) as { input: string[] };
        seen.push({ url: req.url ?? '', authorization: req.headers.authorization, body });
        if (behaviour.kind === 'hang') return;
        if (behaviour.kind === 'status') {
          res.writeHead(behaviour.status, { 'content-type': 'text/plain' }).end(behaviour.body);
          return;
        }
        // Answered out of order: the embedder sorts by index.
        const data = body.input.map((t, index) => ({ object: 'embedding', index, embedding: [t.length, index, 1] })).reverse();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const embedder = (transport: 'sdk' | 'fetch', url = baseURL) =>
    new OpenAIEmbedder({ baseURL: url, apiKey: 'secret-1', model: 'e5-passage', dimension: 3, timeoutMs: 1_000, unavailableHint: 'Run it again', transport });

  /** What each transport did for one behaviour: its vectors or its error, and the requests the server saw. */
  async function both(b: Behaviour, url?: string) {
    behaviour = b;
    const out: Record<string, { result: unknown; requests: Seen[] }> = {};
    for (const transport of ['sdk', 'fetch'] as const) {
      seen.length = 0;
      const result = await embedder(transport, url)
        .embedDocuments(['one', 'three'])
        .then(
          (v) => v,
          (err: unknown) => (err instanceof EmbeddingError ? `EmbeddingError: ${err.message}` : err),
        );
      out[transport] = { result, requests: [...seen] };
    }
    return out as Record<'sdk' | 'fetch', { result: unknown; requests: Seen[] }>;
  }

  it('embeds without importing the SDK', async () => {
    expect(await embedder('fetch').embedQuery('one')).toEqual([3, 0, 1]);
    expect(imported.openai).toBe(0);
  });

  it('sends what the SDK sends and returns the same vectors', async () => {
    const { sdk, fetch } = await both({ kind: 'ok' });
    expect(fetch.result).toEqual([
      [3, 0, 1],
      [5, 1, 1],
    ]);
    expect(fetch.result).toEqual(sdk.result);
    expect(fetch.requests).toEqual(sdk.requests);
    expect(fetch.requests[0]).toEqual({
      url: '/v1/embeddings',
      authorization: 'Bearer secret-1',
      body: { model: 'e5-passage', input: ['one', 'three'], encoding_format: 'float' },
    });
  });

  it('words an error status as the SDK does, and repeats only a server error', async () => {
    const refused = await both({ kind: 'status', status: 401, body: JSON.stringify({ error: { message: 'owner only', type: 'authentication_error' } }) });
    expect(refused.fetch.result).toBe(`EmbeddingError: embedding request to ${baseURL} failed: 401 owner only`);
    expect(refused.fetch).toEqual(refused.sdk);
    expect(refused.fetch.requests).toHaveLength(1);
    const broken = await both({ kind: 'status', status: 500, body: 'Internal Server Error' });
    expect(broken.fetch.result).toBe(`EmbeddingError: embedding request to ${baseURL} failed: 500 Internal Server Error`);
    expect(broken.fetch).toEqual(broken.sdk);
    expect(broken.fetch.requests).toHaveLength(3);
  }, 20_000);

  it('words a timeout as the SDK does and never repeats it', async () => {
    const { sdk, fetch } = await both({ kind: 'hang' });
    expect(fetch.result).toMatch(/failed: Request timed out after 1 s \(not sent again/);
    expect(fetch).toEqual(sdk);
    expect(fetch.requests).toHaveLength(1);
  });

  it('words a refused connection as the SDK does, with the hint, after two more tries', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/v1`;
    await new Promise((resolve) => closed.close(resolve));
    const { sdk, fetch } = await both({ kind: 'ok' }, url);
    expect(fetch.result).toBe(`EmbeddingError: embedding request to ${url} failed: Connection error. Run it again`);
    expect(fetch.result).toEqual(sdk.result);
  }, 20_000);

  it("builds a status's message as the SDK's APIError does", () => {
    expect(statusMessage(500, '')).toBe('500 status code (no body)');
    expect(statusMessage(422, JSON.stringify({ detail: 'x' }))).toBe('422 status code (no body)');
    expect(statusMessage(400, JSON.stringify({ error: { message: { a: 1 } } }))).toBe('400 {"a":1}');
    expect(statusMessage(400, JSON.stringify({ error: 'bad' }))).toBe('400 "bad"');
  });
});
