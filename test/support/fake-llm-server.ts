// A local OpenAI-compatible chat endpoint on 127.0.0.1 for tests: answers come from a function the test supplies.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
}

/** Returns the assistant message content (usually a JSON string) for a request. */
export type Responder = (request: ChatRequest) => string | Promise<string>;

export interface FakeLlmServer {
  /** Base URL to use as MEM_LLM_BASE_URL (ends in /v1). */
  baseURL: string;
  /** Every chat request received, in order. */
  requests: ChatRequest[];
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

export async function startFakeLlm(respond: Responder): Promise<FakeLlmServer> {
  const requests: ChatRequest[] = [];
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    try {
      const request = JSON.parse(await body(req)) as ChatRequest;
      requests.push(request);
      const content = await respond(request);
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: request.model,
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
          usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        }),
      );
    } catch (err) {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: String(err) } }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
