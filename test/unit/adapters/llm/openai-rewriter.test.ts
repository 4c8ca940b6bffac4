// The query-rewrite adapter against a real local OpenAI-compatible chat server: what it sends, what it
// keeps of the answer, and that a slow or empty answer is an error the search falls back from.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MAX_REWRITE_CHARS, OpenAIRewriter } from '../../../../src/adapters/llm/openai-rewriter.js';
import { LlmError } from '../../../../src/errors.js';
import { startFakeLlm, type FakeLlmServer } from '../../../support/fake-llm-server.js';

let answer: () => string | Promise<string> = () => '';

describe('OpenAIRewriter', () => {
  let llm: FakeLlmServer;
  beforeAll(async () => {
    llm = await startFakeLlm(() => answer());
  });
  afterAll(async () => {
    await llm?.close();
  });

  it('sends the question as the user message and returns the answer as one line', async () => {
    answer = () => '  Alice instrument\nviolin lessons music  ';
    const rewriter = new OpenAIRewriter({ baseURL: llm.baseURL, apiKey: 'x', model: 'fake-model', timeoutMs: 2_000 });
    expect(await rewriter.rewrite('which instrument is Alice learning?')).toBe('Alice instrument violin lessons music');
    const req = llm.requests.at(-1)!;
    expect(req.model).toBe('fake-model');
    expect(req.messages[1]).toEqual({ role: 'user', content: 'which instrument is Alice learning?' });
    expect(req.messages[0]!.content).toMatch(/Keep every name, date and number/);
  });

  it('cuts a long answer, and an empty or slow one is an error', async () => {
    const rewriter = new OpenAIRewriter({ baseURL: llm.baseURL, apiKey: 'x', model: 'fake-model', timeoutMs: 300 });
    answer = () => 'word '.repeat(500);
    expect((await rewriter.rewrite('q')).length).toBeLessThanOrEqual(MAX_REWRITE_CHARS);
    answer = () => '   ';
    await expect(rewriter.rewrite('q')).rejects.toThrow(/empty query rewrite/);
    answer = () => new Promise((resolve) => setTimeout(() => resolve('late'), 1_500));
    const started = Date.now();
    await expect(rewriter.rewrite('q')).rejects.toBeInstanceOf(LlmError);
    expect(Date.now() - started).toBeLessThan(1_400);
  });
});
