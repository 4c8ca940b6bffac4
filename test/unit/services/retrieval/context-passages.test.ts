// A context block's memories: one per memory, its passages merged, a day log's repeated provenance left out.
import { describe, expect, it } from 'vitest';

import { contextMemories, passageOf, type ContextItem } from '../../../../src/services/retrieval/context-passages.js';

const LOG = 'ann/episodic/2023-05-08.md';
const HEADING = 'Conversations on 2023-05-08 > Session 2023-05-08 13:56 UTC · session-01.json';
const turn = (n: number) => `**Ann** (13:56): turn ${n} of the talk.`;
const excerpt = (from: number, to: number, heading = HEADING): ContextItem => ({
  id: 'ann/episodic/2023-05-08',
  type: 'episodic',
  created: '2023-05-08T13:56:00Z',
  path: LOG,
  heading,
  // Turn n sits on line 20 + 2n, a blank line between turns, as a day log writes them.
  lines: [20 + 2 * from, 20 + 2 * to],
  content: `${heading}\n\n${Array.from({ length: to - from + 1 }, (_, i) => turn(from + i)).join('\n\n')}`,
});

describe('passageOf', () => {
  it('takes off the heading prefix, keeps the section heading once without the day-log title, and drops the source note', () => {
    const first = passageOf({
      heading: HEADING,
      content: `## Session 2023-05-08 13:56 UTC · session-01.json\n\n_Conversation from session-01.json, ingested 2023-05-08T13:56:00.000Z, 2 turns, sha256 ab12._\n\n${turn(1)}\n\n${turn(2)}`,
    });
    expect(first).toEqual({ heading: 'Session 2023-05-08 13:56 UTC · session-01.json', paragraphs: [turn(1), turn(2)] });
    expect(passageOf(excerpt(3, 4))).toEqual({ heading: 'Session 2023-05-08 13:56 UTC · session-01.json', paragraphs: [turn(3), turn(4)] });
  });

  it('makes each paragraph one line and keeps a plain memory as it is', () => {
    expect(passageOf({ content: 'Alice lives\nin Munich.\n\nShe moved in 2021.' })).toEqual({
      heading: '',
      paragraphs: ['Alice lives in Munich.', 'She moved in 2021.'],
    });
  });
});

describe('contextMemories', () => {
  it('merges overlapping and adjacent excerpts of one memory into one passage, each paragraph once, in file order', () => {
    const [memory, ...rest] = contextMemories([excerpt(4, 6), excerpt(2, 5), excerpt(7, 8)]);
    expect(rest).toEqual([]);
    expect(memory!.passages).toEqual([
      { heading: 'Session 2023-05-08 13:56 UTC · session-01.json', paragraphs: [2, 3, 4, 5, 6, 7, 8].map(turn), gapBefore: false },
    ]);
    expect(memory!.ids).toHaveLength(3);
  });

  it('keeps a section that follows on under its own heading (one turn per section), with no gap before it', () => {
    const section = (n: number, who: string): ContextItem => ({
      id: 'ann/episodic/s10',
      type: 'episodic',
      created: '2023-07-20T20:56:00Z',
      path: 'ann/episodic/s10.md',
      heading: `Session 10 > D10:${n} ${who}`,
      lines: [10 + 4 * n, 12 + 4 * n],
      content: `## D10:${n} ${who}\n\n${who}: turn ${n}.`,
    });
    const [memory] = contextMemories([section(6, 'Mel'), section(7, 'Caro')]);
    expect(memory!.passages.map((p) => [p.heading, p.paragraphs, p.gapBefore])).toEqual([
      ['D10:6 Mel', ['Mel: turn 6.'], false],
      ['D10:7 Caro', ['Caro: turn 7.'], false],
    ]);
  });

  it('keeps excerpts apart in the file as passages of one memory, the shared heading said once', () => {
    const [memory] = contextMemories([excerpt(10, 11), excerpt(1, 2)]);
    expect(memory!.passages.map((p) => [p.heading, p.paragraphs.length, p.gapBefore])).toEqual([
      ['Session 2023-05-08 13:56 UTC · session-01.json', 2, false],
      ['', 2, true],
    ]);
  });

  it('orders memories by their best result and shows the status only when not active', () => {
    const fact = (id: string, status = 'active'): ContextItem => ({ id, type: 'semantic', created: '2026-11-02T10:00:00Z', content: `Fact ${id}.`, status });
    const memories = contextMemories([fact('b'), excerpt(1, 1), fact('a', 'superseded'), excerpt(5, 5)]);
    expect(memories.map((m) => [m.id, m.status])).toEqual([
      ['b', undefined],
      ['ann/episodic/2023-05-08', undefined],
      ['a', 'superseded'],
    ]);
  });
});
