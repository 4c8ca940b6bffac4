// Covers extractMemories on a fake LLM: long conversations go in windows, each answer is checked against the
// schema item by item, duplicates across windows are kept once, and a failing window costs only itself.
import { describe, expect, it } from 'vitest';

import { LlmError } from '../../../../src/errors.js';
import { extractMemories, windows } from '../../../../src/services/ingest/extract.js';
import type { Llm } from '../../../../src/services/ports.js';
import type { Turn } from '../../../../src/services/ingest/transcript.js';

function fakeLlm(answers: unknown[]): Llm & { requests: { system: string; user: string }[] } {
  const requests: { system: string; user: string }[] = [];
  return {
    model: 'fake-chat',
    requests,
    async completeJson(request) {
      requests.push(request);
      const answer = answers[requests.length - 1];
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
}

const CONTEXT = { source: 'chat', day: '2026-11-30' };
const SHORT: Turn[] = [
  { role: 'user', content: 'I moved to Lisbon and I am allergic to shellfish.', time: '2026-11-30T09:00:00Z' },
  { role: 'assistant', content: 'Noted.' },
];
// Three turns of 5,000 characters: two windows of at most 12,000 characters.
const LONG: Turn[] = ['a', 'b', 'c'].map((c) => ({ role: 'user', content: c.repeat(5_000) }));

describe('extractMemories', () => {
  it('sends the transcript with its source and day, and returns the memories that fit the schema', async () => {
    const llm = fakeLlm([
      {
        memories: [
          { text: 'The user lives in Lisbon.', kind: 'fact', importance: 0.8, key: 'residence' },
          { text: 'The user is allergic to shellfish.', kind: 'fact', importance: 0.95, tags: ['health'] },
        ],
      },
    ]);
    const result = await extractMemories(llm, SHORT, CONTEXT);
    expect(result).toMatchObject({ windows: 1, failedWindows: 0, warnings: [] });
    expect(result.memories.map((m) => m.key ?? m.tags)).toEqual(['residence', ['health']]);
    expect(llm.requests[0]!.user).toContain('Conversation from chat, 2026-11-30');
    expect(llm.requests[0]!.user).toContain('[user 2026-11-30T09:00:00Z] I moved to Lisbon');
  });

  it('skips items that break the schema with a warning each, keeping the others', async () => {
    const llm = fakeLlm([
      {
        memories: [
          { text: 'The user likes tea.', kind: 'preference', importance: 0.6 },
          { text: '', kind: 'fact', importance: 0.5 },
          { text: 'The user has a key.', kind: 'fact', importance: 0.5, key: 'Not A Slot' },
          { text: 'Whatever.', kind: 'gossip', importance: 0.5 },
        ],
      },
    ]);
    const result = await extractMemories(llm, SHORT, CONTEXT);
    expect(result.memories.map((m) => m.text)).toEqual(['The user likes tea.']);
    expect(result.warnings).toHaveLength(3);
    expect(result.warnings[1]).toMatch(/^skipped memory 3 from the LLM: key: a key is a short snake_case slot name/);
  });

  it('asks window by window, keeps a memory found twice once, and survives a failing or malformed window', async () => {
    expect(windows(LONG)).toHaveLength(2);
    const same = { text: 'The user writes long messages.', kind: 'fact', importance: 0.3 };
    const twice = await extractMemories(fakeLlm([{ memories: [same] }, { memories: [{ ...same, text: 'The user  writes LONG messages.' }] }]), LONG, CONTEXT);
    expect(twice).toMatchObject({ windows: 2, failedWindows: 0 });
    expect(twice.memories).toHaveLength(1);

    const broken = await extractMemories(fakeLlm([new LlmError('timeout'), 'not an object']), LONG, CONTEXT);
    expect(broken).toMatchObject({ windows: 2, failedWindows: 2, memories: [] });
    expect(broken.warnings).toEqual([
      'extraction failed (part 1 of 2): timeout',
      expect.stringMatching(/^the LLM's answer \(part 2 of 2\) is not \{"memories": \[\.\.\.\]\}/),
    ]);
  });
});
