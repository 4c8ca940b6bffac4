// Covers ingestConversation on unit deps (real files, fake index and embedder, recording audit log) with a
// fake LLM: the day log and its sessions, offline mode, extraction into memories, malformed or failing
// LLM answers, and a transcript ingested twice.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { InvalidMemoryError, LlmError, UsageError } from '../../../../src/errors.js';
import { ingestConversation } from '../../../../src/services/ingest.js';
import type { Llm } from '../../../../src/services/ports.js';
import { InMemoryIndex } from '../../../support/fakes.js';
import { tempRoot } from '../../../support/temp-root.js';
import { recordingAudit, unitDeps } from '../../../support/unit-deps.js';

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

class FakeLlm implements Llm {
  readonly model = 'fake-chat';
  readonly requests: { system: string; user: string }[] = [];
  constructor(private readonly answer: (user: string) => unknown) {}
  async completeJson(request: { system: string; user: string }): Promise<unknown> {
    this.requests.push(request);
    const a = this.answer(request.user);
    if (a instanceof Error) throw a;
    return a;
  }
}

async function setup(llm?: Llm, tree: Record<string, string> = {}) {
  const root = await tempRoot(tree);
  roots.push(root);
  const audit = recordingAudit();
  const index = new InMemoryIndex();
  const deps = unitDeps(root, { index, audit, ...(llm ? { llm } : {}) });
  const commits = audit.commits;
  return { root, deps, index, commits, read: (p: string) => readFile(join(root, p), 'utf8') };
}

const CHAT = JSON.stringify([
  { role: 'user', content: 'Hi! How are you?', time: '2026-11-30T09:00:00Z' },
  { role: 'assistant', content: 'Fine, thanks. How can I help?' },
  { role: 'user', content: 'I moved to Lisbon last week and I am allergic to shellfish.\n# not a heading' },
  { role: 'assistant', content: 'Noted. Shall I avoid seafood restaurants?' },
  { role: 'user', content: 'Yes, please. Let us book the vegetarian place on Friday.' },
]);

const GOOD = {
  memories: [
    { text: 'The user lives in Lisbon (moved in late November 2026).', kind: 'fact', importance: 0.8, key: 'residence' },
    { text: 'The user is allergic to shellfish.', kind: 'fact', importance: 0.95, tags: ['health'] },
    { text: 'The user decided to book the vegetarian restaurant on Friday.', kind: 'decision', importance: 0.5 },
    { text: 'The user had a chat on 2026-11-30 about moving.', kind: 'event', importance: 0.3 },
  ],
};

describe('ingestConversation', () => {
  it('offline: appends the session to the day log with provenance, indexes and commits it, and says no extraction ran', async () => {
    const t = await setup();
    const r = await ingestConversation(t.deps, { user: 'ann', text: CHAT, source: 'chat.json' });
    expect(r).toMatchObject({
      user: 'ann',
      turns: 5,
      log: { id: 'ann/episodic/2026-11-30', path: 'ann/episodic/2026-11-30.md', appended: true },
      extraction: { status: 'offline', memories: [], warnings: [] },
    });
    const text = await t.read('ann/episodic/2026-11-30.md');
    expect(text).toContain('type: episodic');
    expect(text).toContain('# Conversations on 2026-11-30');
    expect(text).toContain('## Session 2026-11-30 09:00 UTC · chat.json');
    expect(text).toMatch(/_Conversation from chat\.json, ingested 2026-12-01T12:00:00\.000Z, 5 turns, sha256 [0-9a-f]{16}\._/);
    expect(text).toContain('**user** (09:00): Hi! How are you?');
    expect(text).toContain('\\# not a heading'); // a message cannot add headings to the log
    expect(t.commits).toHaveLength(1);
    expect(t.commits[0]!.paths).toEqual(['ann/episodic/2026-11-30.md']);
    expect(t.commits[0]!.message).toContain('action: INGEST');
    expect(t.commits[0]!.message).toContain('source: chat.json');
    expect(t.index.rowsOf('ann/episodic/2026-11-30.md').length).toBeGreaterThan(0);
    expect(t.index.rowsOf('ann/episodic/2026-11-30.md')[0]!.type).toBe('episodic');
  });

  it('a second session on the same day is a new section; the same transcript again is not logged twice', async () => {
    const t = await setup();
    await ingestConversation(t.deps, { user: 'ann', text: CHAT, source: 'chat.json' });
    const second = await ingestConversation(t.deps, { user: 'ann', text: '[2026-11-30T18:00:00Z] user: Dinner was great.', source: 'evening.md' });
    expect(second.log).toMatchObject({ path: 'ann/episodic/2026-11-30.md', appended: true });
    const again = await ingestConversation(t.deps, { user: 'ann', text: CHAT, source: 'chat.json' });
    expect(again.log.appended).toBe(false);
    const text = await t.read('ann/episodic/2026-11-30.md');
    expect(text.match(/^## Session/gm)).toHaveLength(2);
    expect(text).toContain('## Session 2026-11-30 18:00 UTC · evening.md');
    expect(t.commits).toHaveLength(2);
  });

  it('all or nothing: a commit that fails puts the day log back as it was, and the retry logs and commits it', async () => {
    const t = await setup();
    await ingestConversation(t.deps, { user: 'ann', text: CHAT, source: 'chat.json' });
    const before = await t.read('ann/episodic/2026-11-30.md');
    const commit = t.deps.audit.commit;
    t.deps.audit.commit = async () => {
      throw new Error('nothing committed: a git merge is in progress');
    };
    const evening = '[2026-11-30T18:00:00Z] user: Dinner was great.';
    await expect(ingestConversation(t.deps, { user: 'ann', text: evening, source: 'evening.md' })).rejects.toThrow('merge is in progress');
    expect(await t.read('ann/episodic/2026-11-30.md')).toBe(before);
    expect(JSON.stringify(t.index.rowsOf('ann/episodic/2026-11-30.md'))).not.toContain('Dinner');
    t.deps.audit.commit = commit;
    const retry = await ingestConversation(t.deps, { user: 'ann', text: evening, source: 'evening.md' });
    expect(retry.log.appended).toBe(true);
    expect(t.commits.at(-1)!.paths).toEqual(['ann/episodic/2026-11-30.md']);
  });

  it('a day over the file size limit goes on in more files, each within it, committed together', async () => {
    const t = await setup();
    t.deps.maxFileBytes = 64 * 1024;
    const turns = Array.from({ length: 40 }, (_, i) => ({ role: 'user', content: `turn ${i} ${'y'.repeat(4_000)}`, time: '2026-12-04T09:00:00Z' }));
    const r = await ingestConversation(t.deps, { user: 'ann', text: JSON.stringify(turns), source: 'long.json' });
    expect(r.log.parts!.length).toBeGreaterThan(2);
    expect(r.log.parts![1]).toBe('ann/episodic/2026-12-04-2.md');
    const texts = await Promise.all(r.log.parts!.map((p) => t.read(p)));
    for (const text of texts) expect(Buffer.byteLength(text)).toBeLessThanOrEqual(64 * 1024);
    for (let i = 0; i < 40; i++) expect(texts.join('').split(`turn ${i} y`)).toHaveLength(2);
    expect(t.commits).toHaveLength(1);
    expect(t.commits[0]!.paths).toEqual(r.log.parts);
    // The same transcript again is found in the day's files and not logged twice.
    const again = await ingestConversation(t.deps, { user: 'ann', text: JSON.stringify(turns), source: 'long.json' });
    expect(again.log.appended).toBe(false);
  });

  it('with an LLM: each extracted memory is added with its type, importance, kind tag and ingest source', async () => {
    const llm = new FakeLlm(() => GOOD);
    const t = await setup(llm);
    const r = await ingestConversation(t.deps, { user: 'ann', text: CHAT, source: 'chat.json' });
    expect(r.extraction.status).toBe('done');
    expect(r.extraction.model).toBe('fake-chat');
    expect(r.extraction.warnings).toEqual([]);
    expect(r.extraction.memories.map((m) => [m.action, m.type, m.kind])).toEqual([
      ['ADD', 'semantic', 'fact'],
      ['ADD', 'semantic', 'fact'],
      ['ADD', 'semantic', 'decision'],
      ['ADD', 'episodic', 'event'],
    ]);
    const allergy = await t.read(r.extraction.memories[1]!.path);
    expect(allergy).toMatch(/source: '?ingest:chat\.json'?/);
    expect(allergy).toContain('importance: 0.95');
    expect(allergy).toMatch(/tags:\s*\n\s*- fact\n\s*- health/);
    expect(await t.read(r.extraction.memories[0]!.path)).toContain('key: residence');
    // One extraction request (the others are write-time reconciliation of each memory against similar ones);
    // the prompt forbids small talk and carries the transcript as data.
    expect(llm.requests.filter((q) => q.system.includes('Do NOT store small talk'))).toHaveLength(1);
    expect(llm.requests[0]!.system).toContain('Do NOT store small talk');
    expect(llm.requests[0]!.user).toContain('<transcript>\n[user 2026-11-30T09:00:00.000Z] Hi! How are you?');
  });

  it('an empty extraction (small talk only) stores nothing but the log', async () => {
    const t = await setup(new FakeLlm(() => ({ memories: [] })));
    const r = await ingestConversation(t.deps, { user: 'ann', text: 'user: hi\nassistant: hello!\nuser: thanks, bye', source: 'smalltalk.md' });
    expect(r.extraction).toMatchObject({ status: 'done', memories: [], warnings: [] });
    expect(t.commits).toHaveLength(1);
  });

  it('malformed answers: a wrong shape stores nothing (status failed), a bad item is skipped with a warning', async () => {
    const wrong = await setup(new FakeLlm(() => ({ facts: ['The user likes tea'] })));
    const r1 = await ingestConversation(wrong.deps, { user: 'ann', text: CHAT, source: 'chat.json' });
    expect(r1.extraction.status).toBe('failed');
    expect(r1.extraction.warnings).toEqual([expect.stringContaining(`the LLM's answer is not {"memories": [...]}`)]);
    expect(r1.log.appended).toBe(true);

    const partly = await setup(
      new FakeLlm(() => ({ memories: [GOOD.memories[0], { text: 'x', kind: 'gossip', importance: 2 }, { text: '   ', kind: 'fact', importance: 0.5 }] })),
    );
    const r2 = await ingestConversation(partly.deps, { user: 'ann', text: CHAT, source: 'chat.json' });
    expect(r2.extraction.status).toBe('done');
    expect(r2.extraction.memories).toHaveLength(1);
    expect(r2.extraction.warnings).toEqual([
      expect.stringMatching(/^skipped memory 2 from the LLM: kind: /),
      expect.stringMatching(/^skipped memory 3 from the LLM: text: /),
    ]);
  });

  it('an LLM that fails: the log is kept, the extraction is reported failed', async () => {
    const t = await setup(new FakeLlm(() => new LlmError('LLM request to http://127.0.0.1:9/v1 failed: connection refused')));
    const r = await ingestConversation(t.deps, { user: 'ann', text: CHAT, source: 'chat.json' });
    expect(r.extraction.status).toBe('failed');
    expect(r.extraction.warnings[0]).toContain('extraction failed: LLM request to http://127.0.0.1:9/v1 failed');
    expect(await t.read('ann/episodic/2026-11-30.md')).toContain('chat.json');
  });

  it('bad input: an invalid user, a bad transcript, or a broken existing log (never overwritten)', async () => {
    const t = await setup(undefined, { 'ann/episodic/2026-11-30.md': '---\nuser: [a, b]\n---\nold\n' });
    await expect(ingestConversation(t.deps, { user: '../x', text: CHAT, source: 'c.json' })).rejects.toBeInstanceOf(UsageError);
    await expect(ingestConversation(t.deps, { user: 'ann', text: '[{"role": 1}]', source: 'c.json' })).rejects.toThrow(/^c\.json: turn 1/);
    await expect(ingestConversation(t.deps, { user: 'ann', text: CHAT, source: 'c.json' })).rejects.toBeInstanceOf(InvalidMemoryError);
    expect(await t.read('ann/episodic/2026-11-30.md')).toBe('---\nuser: [a, b]\n---\nold\n');
  });

  it('refuses a transcript holding a secret before writing anything, unless allowed', async () => {
    const t = await setup();
    const leaky = JSON.stringify([{ role: 'user', content: 'my db is postgres://admin:hunter2secret@db.example.com/prod', time: '2026-11-30T09:00:00Z' }]);
    const err = await ingestConversation(t.deps, { user: 'ann', text: leaky, source: 'leak.json' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/looks like a secret/);
    expect((err as Error).message).not.toContain('hunter2secret');
    expect(t.commits).toHaveLength(0);
    const allowed = await ingestConversation(t.deps, { user: 'ann', text: leaky, source: 'leak.json', allowSecrets: true });
    expect(allowed.log.appended).toBe(true);
  });

  it('long conversations are sent in parts; a memory found in two parts is stored once', async () => {
    const llm = new FakeLlm(() => ({ memories: [{ text: 'The user plays the cello.', kind: 'fact', importance: 0.7 }] }));
    const t = await setup(llm);
    const turns = Array.from({ length: 40 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `${'word '.repeat(100)}${i}` }));
    const r = await ingestConversation(t.deps, { user: 'ann', text: JSON.stringify(turns), source: 'long.json' });
    expect(llm.requests.length).toBeGreaterThan(1);
    expect(r.extraction.memories).toHaveLength(1);
  });
});

describe('ingestConversation routeTo', () => {
  it('stores the extracted memories of a routed kind elsewhere, the others here', async () => {
    const llm = new FakeLlm(() => ({
      memories: [
        { text: 'The user moved to Lisbon.', kind: 'fact', importance: 0.7, key: 'residence' },
        { text: 'The user prefers vegetarian restaurants.', kind: 'preference', importance: 0.6 },
      ],
    }));
    const { deps, read } = await setup(llm);
    const routed: string[] = [];
    const r = await ingestConversation(deps, {
      user: 'ann',
      text: CHAT,
      source: 'chat.json',
      routeTo: (kind) =>
        kind === 'preference'
          ? async (input) => {
              routed.push(input.text);
              return {
                action: 'ADD',
                id: 'elsewhere-1',
                path: 'ann/semantic/elsewhere.md',
                user: 'ann',
                type: 'semantic',
                reason: 'routed',
                decidedBy: 'rules',
              };
            }
          : undefined,
    });
    expect(routed).toEqual(['The user prefers vegetarian restaurants.']);
    expect(r.extraction.memories.map((m) => m.id)).toContain('elsewhere-1');
    const here = r.extraction.memories.find((m) => m.kind === 'fact')!;
    expect(await read(here.path)).toContain('The user moved to Lisbon.');
  });
});
