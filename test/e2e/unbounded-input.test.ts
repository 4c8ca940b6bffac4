// Unbounded input through the real `bin/mem`: an over-long query or memory text is a usage error that says
// the limit; a long text is embedded as bounded pieces in bounded requests; a request that timed out is not sent
// again. The request-level checks use a recording OpenAI-compatible embedding endpoint (with real Milvus Lite).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startFakeEmbedder, type FakeEmbedderServer } from '../support/fake-embedder-server.js';
import { runMem } from '../support/harness.js';
import { snapshot } from '../support/sync-fixture.js';
import { tempRoot } from '../support/temp-root.js';

const WORDS = ['alice', 'cello', 'berlin', 'tea', 'morning', 'garden', 'violin', 'porto', 'train', 'letter', 'river', 'bread'];
/** `n` characters of varied words (a long note), deterministic. */
const longText = (n: number) =>
  Array.from({ length: Math.ceil(n / 6) }, (_, i) => WORDS[(i * 7 + (i >> 3)) % WORDS.length])
    .join(' ')
    .slice(0, n);

describe('caps on queries and memory texts (local model)', () => {
  let root: string;
  beforeAll(async () => {
    root = await tempRoot({ 'alice/semantic/tea.md': 'Alice drinks sencha green tea every morning.\n' }, 'memdir-e2e-caps-');
  });
  afterAll(async () => {
    await runMem(['server', 'stop'], { root });
  });

  it('a query over 2,000 characters is a usage error that names the limit; one at the limit is searched', async () => {
    const long = await runMem(['search', longText(2_001), '--user', 'alice', '--json'], { root });
    expect(long.code).toBe(2);
    expect(long.json.error).toEqual({
      code: 'USAGE',
      message: 'the query is 2001 characters long; at most 2000 are allowed (shorten it to what you are looking for)',
    });
    const atLimit = await runMem(['search', `green tea ${longText(1_990)}`, '--user', 'alice', '--json'], { root });
    expect(atLimit.code).toBe(0);
  });

  it('a memory text over 100,000 characters is a usage error that names the limit, and nothing is written', async () => {
    const before = await snapshot(root);
    const huge = await runMem(['add', longText(100_001), '--user', 'alice', '--json'], { root });
    expect(huge.code).toBe(2);
    expect(huge.json.error.message).toBe('the memory text is 100001 characters long; at most 100000 are allowed (split it, or write it as a file in the root)');
    expect(await snapshot(root)).toEqual(before);
  });
});

describe('embedding requests stay bounded (recording endpoint)', () => {
  let root: string;
  let fake: FakeEmbedderServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    fake = await startFakeEmbedder(16);
    root = await tempRoot({ 'alice/semantic/tea.md': 'Alice drinks sencha green tea every morning.\n' }, 'memdir-e2e-bounded-');
    env = { MEM_EMBEDDER: 'openai', MEM_EMBED_BASE_URL: fake.baseURL, MEM_EMBED_MODEL: 'fake', MEM_EMBED_DIMENSION: '16', MEM_EMBED_TIMEOUT: '3s' };
  });
  afterAll(async () => {
    await runMem(['server', 'stop'], { root });
    await fake.close();
  });

  it('a 40,000-character memory is embedded as pieces of at most 2,000 characters, at most 4,000 per request', async () => {
    const text = `# Alice's travel journal\n\n${longText(40_000)}`;
    const added = await runMem(['add', text, '--user', 'alice', '--json'], { root, env });
    expect(added.code).toBe(0);
    expect(added.json.action).toBe('ADD');
    const sizes = fake.requests.map((inputs) => inputs.map((t) => t.length));
    expect(sizes.length).toBeGreaterThan(20);
    expect(Math.max(...sizes.flat())).toBeLessThanOrEqual(2_000);
    for (const request of sizes) if (request.length > 1) expect(request.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(4_000);
    const found = await runMem(['search', 'travel journal', '--user', 'alice', '--mode', 'bm25', '--json'], { root, env });
    expect(found.json.results.map((r: { id: string }) => r.id)).toContain(added.json.id);
  });

  it('a request that timed out is not sent again, and the error says so', async () => {
    const before = fake.requests.length;
    const run = await runMem(['search', 'HANG on this query', '--user', 'alice', '--json'], { root, env });
    expect(run.code).toBe(1);
    expect(run.json.error.code).toBe('EMBEDDING');
    expect(run.json.error.message).toMatch(/timed out after 3 s \(not sent again: the server may still be working on it; MEM_EMBED_TIMEOUT sets the limit\)/);
    expect(fake.requests.slice(before).filter((inputs) => inputs.some((t) => t.includes('HANG')))).toHaveLength(1);
  });
});
