// A local OpenAI-compatible embedding endpoint on 127.0.0.1 for tests: deterministic vectors from the text's
// words, every request recorded; an input containing "HANG" is never answered (a server stuck on a request).
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeEmbedderServer {
  /** Base URL to use as MEM_EMBED_BASE_URL (ends in /v1). */
  baseURL: string;
  /** The inputs of every request received, in order. */
  requests: string[][];
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

/** A unit vector of `dimension` from the text's words: texts sharing words are close. */
function vectorOf(text: string, dimension: number): number[] {
  const v = new Array<number>(dimension).fill(0);
  for (const word of text.toLowerCase().match(/\p{L}+/gu) ?? []) v[createHash('sha256').update(word).digest()[0]! % dimension]! += 1;
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => (x === 0 && norm === 1 ? 1 / Math.sqrt(dimension) : x / norm));
}

export async function startFakeEmbedder(dimension: number): Promise<FakeEmbedderServer> {
  const requests: string[][] = [];
  const hung: ServerResponse[] = [];
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/embeddings')) {
      res.writeHead(404).end();
      return;
    }
    const { input } = JSON.parse(await body(req)) as { input: string | string[] };
    const texts = Array.isArray(input) ? input : [input];
    requests.push(texts);
    if (texts.some((t) => t.includes('HANG'))) {
      hung.push(res);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        object: 'list',
        model: 'fake',
        data: texts.map((t, index) => ({ object: 'embedding', index, embedding: vectorOf(t, dimension) })),
        usage: { prompt_tokens: 0, total_tokens: 0 },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
