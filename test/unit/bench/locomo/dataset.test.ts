// LoCoMo parsing: dates, evidence quirks, and turning sessions into memdir files whose chunks map back to turns.
import { describe, expect, it } from 'vitest';

import { normaliseEvidence, parseLocomo, parseLocomoDate, sessionOfTurn } from '../../../../bench/locomo/dataset.js';
import { sessionMarkdown, sessionPath, turnOfHeading } from '../../../../bench/locomo/ingest.js';
import { toChunkRecords } from '../../../../src/memory/records.js';
import { parseMemory } from '../../../../src/memory/parse.js';

const sample = [
  {
    sample_id: 'conv-1',
    conversation: {
      speaker_a: 'Ann',
      speaker_b: 'Ben',
      session_1_date_time: '1:56 pm on 8 May, 2023',
      session_1: [
        { speaker: 'Ann', dia_id: 'D1:1', text: 'I adopted a cat!' },
        { speaker: 'Ben', dia_id: 'D1:2', text: 'Lovely. Name?', blip_caption: 'a photo of a grey cat' },
      ],
      session_2_date_time: '9:00 am on 1 June, 2023',
      session_2: [{ speaker: 'Ann', dia_id: 'D2:1', text: 'Miso is settling in.' }],
    },
    qa: [
      { question: 'What pet did Ann adopt?', answer: 'a cat', evidence: ['D1:1'], category: 4 },
      { question: 'When?', answer: 'May', evidence: ['D1:01; D2:1'], category: 2 },
      { question: 'Adversarial', adversarial_answer: 'x', evidence: [], category: 5 },
    ],
  },
];

describe('LoCoMo dataset', () => {
  it('parses LoCoMo dates to UTC ISO times', () => {
    expect(parseLocomoDate('1:56 pm on 8 May, 2023')).toBe('2023-05-08T13:56:00.000Z');
    expect(parseLocomoDate('12:05 am on 1 January, 2024')).toBe('2024-01-01T00:05:00.000Z');
    expect(parseLocomoDate('sometime')).toBeNull();
  });

  it('normalises malformed evidence ids', () => {
    expect(normaliseEvidence(['D8:6; D9:17', 'D30:05', 'D:11:26', 'D', 'D8:6'])).toEqual(['D8:6', 'D9:17', 'D30:5', 'D11:26']);
    expect(sessionOfTurn('D12:3')).toBe(12);
  });

  it('reads sessions in order with their dates, and questions with normalised evidence', () => {
    const [conv] = parseLocomo(sample);
    expect(conv!.sessions.map((s) => [s.number, s.date])).toEqual([
      [1, '2023-05-08T13:56:00.000Z'],
      [2, '2023-06-01T09:00:00.000Z'],
    ]);
    expect(conv!.questions.map((q) => q.evidence)).toEqual([['D1:1'], ['D1:1', 'D2:1'], []]);
  });

  it('writes a session as one episodic memory whose chunks each map back to one turn', () => {
    const [conv] = parseLocomo(sample);
    const session = conv!.sessions[0]!;
    const path = sessionPath(conv!, session);
    expect(path).toBe('conv-1/episodic/session-01.md');
    const doc = parseMemory(sessionMarkdown(conv!, session), { path, defaultUser: 'x', fallbackTime: '2026-01-01T00:00:00Z' });
    expect(doc.meta).toMatchObject({ user: 'conv-1', type: 'episodic', created: '2023-05-08T13:56:00.000Z' });
    const records = toChunkRecords(doc, { maxChars: 1500 });
    const turns = records.map((r) => turnOfHeading(r.heading)).filter(Boolean);
    expect(turns).toEqual(['D1:1', 'D1:2']);
    const second = records.find((r) => turnOfHeading(r.heading) === 'D1:2')!;
    expect(second.content).toContain('Ben (1:56 pm on 8 May, 2023): Lovely. Name? [shares an image: a photo of a grey cat]');
  });

  it("in a pooled scope, a session file lives in the pooled user's folder under a name and id that keep its conversation", () => {
    const [conv] = parseLocomo(sample);
    const session = conv!.sessions[0]!;
    const path = sessionPath(conv!, session, 'pooled');
    expect(path).toBe('pooled/episodic/conv-1-session-01.md');
    const doc = parseMemory(sessionMarkdown(conv!, session, 'pooled'), { path, defaultUser: 'x', fallbackTime: '2026-01-01T00:00:00Z' });
    expect(doc.meta).toMatchObject({ user: 'pooled', id: 'pooled-conv-1-session-1' });
    // The embedded texts are those of the conversation's own scope: the vector cache serves both.
    const own = parseMemory(sessionMarkdown(conv!, session), { path: sessionPath(conv!, session), defaultUser: 'x', fallbackTime: '2026-01-01T00:00:00Z' });
    expect(toChunkRecords(doc, { maxChars: 1500 }).map((r) => r.textHash)).toEqual(toChunkRecords(own, { maxChars: 1500 }).map((r) => r.textHash));
  });
});
