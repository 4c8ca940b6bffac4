// Search's optional stages on real parts (Milvus Lite + local model): the date signal on real files (a
// day log, a fact with `created`), a `/rerank` endpoint and a query rewrite through the chat endpoint,
// each served by a local HTTP server; a stage that fails or times out leaves the unreranked results.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DATE_SHARE } from '../../src/services/retrieval/dates.js';
import { searchMemories } from '../../src/services/search.js';
import { startFakeLlm, type FakeLlmServer } from '../support/fake-llm-server.js';
import { startFakeRerank, type FakeRerankServer } from '../support/fake-rerank-server.js';
import { openTestMemory, type TestMemory } from '../support/harness.js';

const memory = (id: string, created: string, body: string) =>
  `---\nid: ${id}\nuser: alice\ntype: episodic\nimportance: 0.5\nstatus: active\ncreated: ${created}\nupdated: ${created}\nsource: agent\n---\n${body}\n`;

const FILES = {
  'alice/episodic/2023-05-08.md': memory('alice-log-2023-05-08', '2023-05-08T18:00:00.000Z', '## Evening\n\nAlice practised the violin with her teacher.'),
  'alice/episodic/2023-03-02.md': memory('alice-log-2023-03-02', '2023-03-02T18:00:00.000Z', '## Evening\n\nAlice practised the violin alone.'),
  'alice/semantic/bike.md': memory('alice-bike', '2023-05-20T09:00:00.000Z', 'Alice bought a red bike.'),
};

let rewriteAnswer = 'violin practice teacher';
// One root serves both: the stages switched off per search give the baseline.
const NO_STAGES = { rerank: false, rewrite: false };

describe('search stages', () => {
  let rerank: FakeRerankServer;
  let llm: FakeLlmServer;
  let staged: TestMemory;

  beforeAll(async () => {
    // The fake reranker prefers documents that mention a bike, whatever the query.
    rerank = await startFakeRerank({ kind: 'scores', score: (_q, d) => (d.includes('bike') ? 0.9 : 0.1) });
    llm = await startFakeLlm(() => rewriteAnswer);
    staged = await openTestMemory(FILES, {
      MEM_RERANK_URL: rerank.url,
      MEM_RERANK_MODEL: 'fake-reranker',
      MEM_RERANK_TIMEOUT: '1s',
      MEM_LLM_MODEL: 'fake-model',
      MEM_LLM_BASE_URL: llm.baseURL,
      MEM_QUERY_REWRITE: 'on',
    });
  });
  afterAll(async () => {
    await staged?.cleanup();
    await rerank?.close();
    await llm?.close();
  });

  it('a date in the query lifts the day log of that day over an equal one of another day', async () => {
    const at = new Date('2023-06-01T00:00:00Z');
    const query = 'what did Alice practise on 8 May?';
    const withDates = await searchMemories(staged.deps, { ...NO_STAGES, query, user: 'alice', at, rescore: false, track: false }, { dates: DATE_SHARE });
    expect(withDates[0]!.path).toBe('alice/episodic/2023-05-08.md');
    const without = await searchMemories(staged.deps, { ...NO_STAGES, query, user: 'alice', at, rescore: false, track: false }, { dates: 0 });
    const scoreOf = (results: typeof without, path: string) => results.find((r) => r.path === path)!.score;
    expect(scoreOf(withDates, 'alice/episodic/2023-05-08.md') - scoreOf(withDates, 'alice/episodic/2023-03-02.md')).toBeGreaterThan(
      scoreOf(without, 'alice/episodic/2023-05-08.md') - scoreOf(without, 'alice/episodic/2023-03-02.md'),
    );
  });

  it('a `mem add` fact created in the month the query names is lifted by its `created`', async () => {
    const at = new Date('2023-06-01T00:00:00Z');
    const query = 'what did Alice practise in May 2023?';
    const on = await searchMemories(staged.deps, { ...NO_STAGES, query, user: 'alice', at, rescore: false, track: false }, { dates: DATE_SHARE });
    const off = await searchMemories(staged.deps, { ...NO_STAGES, query, user: 'alice', at, rescore: false, track: false }, { dates: 0 });
    const bike = (rs: typeof on) => rs.find((r) => r.path === 'alice/semantic/bike.md')!;
    const other = (rs: typeof on) => rs.find((r) => r.path === 'alice/episodic/2023-03-02.md')!;
    expect(bike(on).score - other(on).score).toBeGreaterThan(bike(off).score - other(off).score);
  });

  it('the reranker orders the results and its score is reported; the rewrite is searched with the question', async () => {
    const asked = llm.requests.length;
    const results = await staged.memory.search({ query: 'what does Alice play?', user: 'alice', track: false });
    expect(results[0]!.path).toBe('alice/semantic/bike.md');
    expect(results[0]!.scores.rerank).toBe(0.9);
    expect(results.every((r) => r.scores.rerank !== undefined)).toBe(true);
    const sent = rerank.requests.at(-1)!.body;
    expect(sent.model).toBe('fake-reranker');
    expect(sent.query).toBe('what does Alice play?');
    expect(sent.documents).toHaveLength(3);
    expect(llm.requests.length).toBe(asked + 1);
    expect(llm.requests.at(-1)!.messages[1]!.content).toBe('what does Alice play?');
  });

  it('a reranker that fails or hangs, and a rewrite that fails, leave the unreranked results', async () => {
    const baseline = await staged.memory.search({ ...NO_STAGES, query: 'what does Alice play?', user: 'alice', track: false });
    rerank.behave({ kind: 'status', status: 500 });
    rewriteAnswer = '';
    const failed = await staged.memory.search({ query: 'what does Alice play?', user: 'alice', track: false });
    expect(failed.map((r) => r.path)).toEqual(baseline.map((r) => r.path));
    expect(failed.every((r) => r.scores.rerank === undefined)).toBe(true);
    rerank.behave({ kind: 'hang' });
    const started = Date.now();
    const hung = await staged.memory.search({ query: 'what does Alice play?', user: 'alice', track: false });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(hung.map((r) => r.path)).toEqual(baseline.map((r) => r.path));
    const off = await staged.memory.search({ query: 'what does Alice play?', user: 'alice', track: false, rerank: false, rewrite: false });
    expect(off.map((r) => r.path)).toEqual(baseline.map((r) => r.path));
  });
});
