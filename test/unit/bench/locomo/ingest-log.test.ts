// LoCoMo in `mem ingest`'s format: day logs written by the ingest code itself, and chunks mapped back to every turn they cover.
import { describe, expect, it } from 'vitest';

import { parseLocomo } from '../../../../bench/locomo/dataset.js';
import { conversationLogs, turnsOfLines } from '../../../../bench/locomo/ingest-log.js';
import { rankedTurnsOf } from '../../../../bench/locomo/run.js';
import { parseMemory } from '../../../../src/memory/parse.js';
import { toChunkRecords } from '../../../../src/memory/records.js';

const long = (n: number) => `${'word '.repeat(n).trim()}.`;
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
      session_2_date_time: '9:00 pm on 8 May, 2023',
      session_2: Array.from({ length: 12 }, (_, i) => ({ speaker: i % 2 ? 'Ben' : 'Ann', dia_id: `D2:${i + 1}`, text: `${i}: ${long(40)}` })),
      session_3_date_time: '9:00 am on 1 June, 2023',
      session_3: [{ speaker: 'Ann', dia_id: 'D3:1', text: 'Miso is settling in.' }],
    },
    qa: [],
  },
];

describe('LoCoMo in the ingest format', () => {
  const [conv] = parseLocomo(sample);
  const logs = conversationLogs(conv!, 'conv-1.log');

  it('writes one day log per date, sessions of the same day appended as sections', () => {
    expect(logs.map((l) => l.path)).toEqual(['conv-1.log/episodic/2023-05-08.md', 'conv-1.log/episodic/2023-06-01.md']);
    const text = logs[0]!.text;
    expect(text).toContain('# Conversations on 2023-05-08');
    expect(text.match(/^## Session /gm)).toHaveLength(2);
    expect(text).toContain('**Ben** (13:56): Lovely. Name? [shares an image: a photo of a grey cat]');
    expect(logs[0]!.turns.map((t) => t.id)).toEqual(['D1:1', 'D1:2', ...Array.from({ length: 12 }, (_, i) => `D2:${i + 1}`)]);
  });

  it('maps each unit to the turn whose lines it covers (windows are never results), each once, in order', () => {
    const log = logs[0]!;
    const doc = parseMemory(log.text, { path: log.path, defaultUser: 'x', fallbackTime: '2026-01-01T00:00:00Z' });
    const units = toChunkRecords(doc, { maxChars: 1500 }).filter((r) => r.kind === 'unit');
    // One turn per unit (a turn is a paragraph of the session's section); the rest are the headings and the provenance line.
    for (const r of units) expect(turnsOfLines(log.turns, r.lineStart, r.lineEnd).length).toBeLessThanOrEqual(1);
    const records = units.filter((r) => turnsOfLines(log.turns, r.lineStart, r.lineEnd).length === 1);
    expect(records.length).toBeGreaterThan(2);
    const covered = records.flatMap((r) => turnsOfLines(log.turns, r.lineStart, r.lineEnd));
    expect(covered).toEqual(log.turns.map((t) => t.id));
    const files = new Map([[log.path, { conv: 'conv-1', log }]]);
    const ranked = rankedTurnsOf(
      [records[1]!, records[0]!, records[1]!].map((r) => ({ path: r.path, heading: r.heading, lines: [r.lineStart, r.lineEnd] as [number, number] })),
      files,
    );
    expect(ranked[0]).toBe(`conv-1/${turnsOfLines(log.turns, records[1]!.lineStart, records[1]!.lineEnd)[0]}`);
    expect(new Set(ranked).size).toBe(ranked.length);
  });
});
