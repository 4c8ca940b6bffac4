// A local `/rerank` endpoint on 127.0.0.1 for tests: scores come from a function the test supplies, in
// the Cohere/Jina/vLLM answer shape (or TEI's bare list); it can also fail or hang.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RerankRequest {
  model?: string;
  query: string;
  documents: string[];
  top_n?: number;
}

export type RerankBehaviour =
  | { kind: 'scores'; score: (query: string, document: string) => number; shape?: 'results' | 'tei' }
  | { kind: 'status'; status: number }
  | { kind: 'hang' }
  | { kind: 'raw'; body: unknown };

export interface FakeRerankServer {
  /** The endpoint to use as MEM_RERANK_URL. */
  url: string;
  requests: { body: RerankRequest; authorization?: string }[];
  behave(next: RerankBehaviour): void;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

export async function startFakeRerank(initial: RerankBehaviour): Promise<FakeRerankServer> {
  let behaviour = initial;
  const requests: FakeRerankServer['requests'] = [];
  const hanging = new Set<() => void>();
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/rerank') {
      res.writeHead(404).end();
      return;
    }
    const request = JSON.parse(await body(req)) as RerankRequest;
    requests.push({ body: request, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    const b = behaviour;
    if (b.kind === 'hang') {
      await new Promise<void>((resolve) => {
        hanging.add(resolve);
        res.on('close', resolve);
      });
      res.destroy();
      return;
    }
    if (b.kind === 'status') {
      res.writeHead(b.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'overloaded' }));
      return;
    }
    const answer =
      b.kind === 'raw'
        ? b.body
        : (() => {
            const scored = request.documents.map((d, index) => ({ index, s: b.score(request.query, d) })).sort((x, y) => y.s - x.s);
            return b.shape === 'tei'
              ? scored.map(({ index, s }) => ({ index, score: s }))
              : { id: 'rerank-1', results: scored.map(({ index, s }) => ({ index, relevance_score: s })) };
          })();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/rerank`,
    requests,
    behave: (next) => {
      behaviour = next;
    },
    close: () => {
      for (const release of hanging) release();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
