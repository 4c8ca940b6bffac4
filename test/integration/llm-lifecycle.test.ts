// LLM-driven lifecycle on real parts (Milvus Lite + local model) with a local OpenAI-compatible chat server:
// decisions are used when valid, fall back to the rules when not, and never override provenance.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startFakeLlm, type ChatRequest, type FakeLlmServer } from '../support/fake-llm-server.js';
import { openTestMemory, type TestMemory } from '../support/harness.js';

/** What the fake model answers next; each test sets it. */
let answer: (request: ChatRequest) => unknown = () => ({});
const existingIds = (request: ChatRequest): string[] => JSON.parse(request.messages[1]!.content).existing_memories?.map((m: { id: string }) => m.id) ?? [];

describe('lifecycle with an LLM', () => {
  let llm: FakeLlmServer;
  let t: TestMemory;

  beforeAll(async () => {
    llm = await startFakeLlm((req) => {
      const a = answer(req);
      return typeof a === 'string' ? a : JSON.stringify(a);
    });
    t = await openTestMemory({}, { MEM_LLM_MODEL: 'fake-model', MEM_LLM_BASE_URL: llm.baseURL });
  });
  afterAll(async () => {
    await t?.cleanup();
    await llm?.close();
  });

  it('adds without asking when nothing is similar', async () => {
    const asked = llm.requests.length;
    const r = await t.memory.add({ text: 'Alice lives in Munich', user: 'alice' });
    expect(r).toMatchObject({ action: 'ADD', decidedBy: 'rules' });
    expect(llm.requests.length).toBe(asked);
  });

  it('supersedes when the model says the fact changed, with its reason in the commit', async () => {
    answer = (req) => ({ action: 'SUPERSEDE', target_id: existingIds(req)[0], reason: 'she moved to another city', text: null });
    const r = await t.memory.add({ text: 'Alice moved to Berlin last month', user: 'alice' });
    expect(r).toMatchObject({ action: 'SUPERSEDE', decidedBy: 'llm', reason: 'she moved to another city' });
    const prompt = llm.requests.at(-1)!;
    expect(prompt.model).toBe('fake-model');
    expect(prompt.messages[1]!.content).toContain('Alice lives in Munich');
    const log = execFileSync('git', ['log', '-1', '--format=%B'], { cwd: t.root, encoding: 'utf8' });
    expect(log).toContain('decided_by: llm');
    expect(log).toContain('reason: she moved to another city');
    const found = await t.memory.search({ query: 'where does alice live', user: 'alice' });
    expect(found.map((f) => f.content)).toEqual(['Alice moved to Berlin last month']);
  });

  it('updates in place with the merged text: same id, same file', async () => {
    const [current] = await t.memory.search({ query: 'where does alice live', user: 'alice' });
    answer = (req) => ({ action: 'UPDATE', target_id: existingIds(req)[0], reason: 'adds the district', text: 'Alice moved to Berlin-Kreuzberg last month' });
    const r = await t.memory.add({ text: 'Alice lives in Kreuzberg, Berlin', user: 'alice' });
    expect(r).toMatchObject({ action: 'UPDATE', id: current!.id, path: current!.path });
    expect(await readFile(join(t.root, current!.path), 'utf8')).toContain('Alice moved to Berlin-Kreuzberg last month');
    expect((await t.memory.get({ id: current!.id, user: 'alice' })).content).toBe('Alice moved to Berlin-Kreuzberg last month');
  });

  it('falls back to the rules when the answer is malformed or names an unknown memory', async () => {
    answer = () => 'this is not json';
    const r = await t.memory.add({ text: 'Alice lives in Berlin-Kreuzberg', user: 'alice', key: 'residence' });
    expect(r.decidedBy).toBe('rules');
    expect(r.reason).toMatch(/LLM answer unusable: .*not JSON.*offline rules applied/);
    answer = () => ({ action: 'SUPERSEDE', target_id: 'bob/semantic/secret', reason: 'x' });
    const again = await t.memory.add({ text: 'Alice is vegetarian', user: 'alice' });
    expect(again.action).toBe('ADD');
    answer = () => ({ action: 'SUPERSEDE', target_id: 'bob/semantic/secret', reason: 'x' });
    const twice = await t.memory.add({ text: 'Alice eats no meat or fish, she is vegetarian', user: 'alice' });
    expect(twice.reason).toMatch(/not one of the similar memories/);
  });

  it('a model inference never replaces what the user said', async () => {
    answer = (req) => ({ action: 'SUPERSEDE', target_id: existingIds(req)[0], reason: 'inferred from a photo', text: null });
    const r = await t.memory.add({ text: 'Alice probably eats fish now', user: 'alice', source: 'agent' });
    expect(r.action).toBe('NOOP');
    expect(r.reason).toMatch(/source \(user\) outranks this one's \(agent\)/);
  });

  it('consolidation uses the model’s summary and still cites every source', async () => {
    answer = () => ({ action: 'ADD', target_id: null, reason: 'another run', text: null });
    for (const text of ['Alice ran 5 km in the park on Saturday', 'Alice ran 8 km along the river on Sunday', 'Alice ran 10 km, her longest run, on Tuesday']) {
      await t.memory.add({ text, user: 'alice', type: 'episodic' });
    }
    answer = () => ({ summary: 'Alice runs regularly: 5 km (park), 8 km (river), 10 km (longest).' });
    const result = await t.memory.consolidate({ user: 'alice' });
    expect(result.groups).toHaveLength(1);
    const summary = result.groups[0]!.summary!;
    expect(summary.summarisedBy).toBe('llm');
    const record = await t.memory.get({ id: summary.id, user: 'alice' });
    expect(record.content).toContain('Alice runs regularly: 5 km (park)');
    for (const id of summary.sources) expect(record.content).toContain(id);
    expect(record.source).toBe('consolidation:fake-model');
  });
});
