// `mem ingest` end to end: the real bin/mem on a real root (Milvus Lite, local model), offline and with
// an OpenAI-compatible chat server on 127.0.0.1 started by the test.
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { startFakeLlm, type FakeLlmServer } from '../support/fake-llm-server.js';
import { runMem } from '../support/harness.js';
import { tempRoot } from '../support/temp-root.js';

const git = (root: string, ...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });

const MARKDOWN = [
  '# Support chat',
  '',
  '[2026-11-28T16:00:00Z] user: Hello there!',
  'assistant: Hi! What can I do for you?',
  'user: Please remember that I am allergic to shellfish, and I now live in Porto.',
  'assistant: Got it.',
].join('\n');

const JSON_CHAT = JSON.stringify([
  { role: 'user', content: 'Good morning!', time: '2026-11-29T08:00:00Z' },
  { role: 'assistant', content: 'Good morning! How can I help?' },
  { role: 'user', content: 'I decided to learn the cello, lessons start in January.' },
  { role: 'assistant', content: 'That sounds wonderful.' },
]);

describe('mem ingest', () => {
  let root: string;
  let files: string;
  let llm: FakeLlmServer;
  let answer = '{"memories": []}';
  const withLlm = () => ({ MEM_LLM_MODEL: 'fake-chat', MEM_LLM_BASE_URL: llm.baseURL });

  beforeAll(async () => {
    root = await e2eRoot({}, 'memdir-e2e-ingest-');
    files = await tempRoot(
      { 'support.md': MARKDOWN, 'cello.json': JSON_CHAT, 'broken.json': '[\n {"role": "user", "content": "hi"},\n {"role": "user",, }\n]' },
      'memdir-e2e-transcripts-',
    );
    llm = await startFakeLlm(() => answer);
  });
  afterAll(async () => {
    await llm.close();
    await disposeE2eRoot(root, files);
  });

  it('offline: writes the episodic log only, commits it, says so, and the log is searchable', async () => {
    const r = await runMem(['ingest', join(files, 'support.md'), '--user', 'ann', '--json'], { root });
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({
      user: 'ann',
      turns: 4,
      log: { path: 'ann/episodic/2026-11-28.md', appended: true },
      extraction: { status: 'offline', memories: [] },
    });
    expect(r.stderr).toContain('no LLM configured');
    const log = await readFile(join(root, 'ann/episodic/2026-11-28.md'), 'utf8');
    expect(log).toContain('## Session 2026-11-28 16:00 UTC · support.md');
    expect(log).toContain('**user**: Please remember that I am allergic to shellfish, and I now live in Porto.');
    expect(git(root, 'log', '-1', '--format=%B')).toContain('action: INGEST');
    expect(git(root, 'status', '--porcelain')).toBe('');
    const search = await runMem(['search', 'shellfish allergy', '--user', 'ann', '--json'], { root });
    expect(search.json.results[0].path).toBe('ann/episodic/2026-11-28.md');

    const human = await runMem(['ingest', join(files, 'support.md'), '--user', 'ann'], { root });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('already in ann/episodic/2026-11-28.md (4 turns): not logged again');
    expect(human.stdout).toContain('no LLM configured');
  });

  it('with an LLM: extracted memories are stored through add, with their source, and found by search', async () => {
    answer = JSON.stringify({
      memories: [
        { text: 'The user decided to learn the cello; lessons start in January 2027.', kind: 'decision', importance: 0.7, tags: ['music'] },
        { text: 'The user said good morning.', kind: 'event', importance: 0.1 },
      ],
    });
    const r = await runMem(['ingest', join(files, 'cello.json'), '--user', 'ann', '--json'], { root, env: withLlm() });
    expect(r.code).toBe(0);
    expect(r.json.extraction).toMatchObject({ status: 'done', model: 'fake-chat', warnings: [] });
    expect(r.json.extraction.memories.map((m: { kind: string; type: string }) => [m.kind, m.type])).toEqual([
      ['decision', 'semantic'],
      ['event', 'episodic'],
    ]);
    const cello = r.json.extraction.memories[0];
    expect(await readFile(join(root, cello.path), 'utf8')).toMatch(/source: '?ingest:cello\.json'?/);
    // The extraction request (later ones may be write-time reconciliation of the extracted memories).
    const extraction = llm.requests.filter((q) => q.messages[0]!.content.includes('Do NOT store small talk')).at(-1)!;
    expect(extraction.messages[1]!.content).toContain('I decided to learn the cello');
    const search = await runMem(['search', 'which instrument is the user learning', '--user', 'ann', '--json'], { root });
    expect(search.json.results.map((x: { id: string }) => x.id)).toContain(cello.id);
    // Nothing leaks to another user.
    expect((await runMem(['search', 'cello lessons', '--user', 'bob', '--json'], { root })).json.results).toEqual([]);
  });

  it('a malformed LLM answer: the log is stored, a clear warning, exit 1', async () => {
    answer = 'Sure! Here are the memories: the user likes tea.';
    await writeFile(join(files, 'tea.md'), 'user: I like tea.\n');
    const r = await runMem(['ingest', join(files, 'tea.md'), '--user', 'ann'], { root, env: withLlm() });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('logged 1 turns to ann/episodic/');
    expect(r.stdout).toContain('warning: extraction failed: LLM fake-chat answered with something that is not JSON');
    expect(r.stderr).toContain('the conversation log was stored');
  });

  it('bad input: exit 2 with the file and line; a missing file is a usage error', async () => {
    const broken = await runMem(['ingest', join(files, 'broken.json'), '--user', 'ann', '--json'], { root });
    expect(broken.code).toBe(2);
    expect(broken.json.error.message).toMatch(/^broken\.json:3: not valid JSON/);
    const missing = await runMem(['ingest', join(files, 'nope.json'), '--user', 'ann'], { root });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read');
    expect((await runMem(['ingest', join(files, 'cello.json')], { root })).code).toBe(2); // no user
  });
});
