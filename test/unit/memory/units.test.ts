// Covers units.ts: the fine units of memdir's real files (an atomic fact, a day log of list items, a
// `mem ingest` session, a hand-written note) and the context windows beside them.
import { describe, expect, it } from 'vitest';

import { chunkId } from '../../../src/memory/hash.js';
import { parseMemory } from '../../../src/memory/parse.js';
import { toChunkRecords } from '../../../src/memory/records.js';
import { unitsAndWindows } from '../../../src/memory/units.js';

const OPTIONS = { maxChars: 1500, window: 3 };
const texts = (chunks: { text: string }[]) => chunks.map((c) => c.text);

describe('unitsAndWindows', () => {
  it('keeps an atomic fact (one paragraph) as one unit with no window', () => {
    const { units, windows } = unitsAndWindows('Alice moved to Berlin in May.\n', 5, OPTIONS);
    expect(units).toEqual([{ heading: '', text: 'Alice moved to Berlin in May.', lineStart: 5, lineEnd: 5 }]);
    expect(windows).toEqual([]);
  });

  it('makes each item of a day log list a unit, and windows of three neighbouring items (stride 1)', () => {
    const body = '# 2026-12-01\n\n- 09:00 standup\n- 10:30 call with Bob about the release\n- 14:00 dentist\n- 16:00 wrote the report\n';
    const { units, windows } = unitsAndWindows(body, 1, OPTIONS);
    // The heading goes with the first unit, as it went with the first chunk.
    expect(texts(units)).toEqual(['# 2026-12-01\n\n- 09:00 standup', '- 10:30 call with Bob about the release', '- 14:00 dentist', '- 16:00 wrote the report']);
    expect(units.map((u) => [u.lineStart, u.lineEnd])).toEqual([
      [1, 3],
      [4, 4],
      [5, 5],
      [6, 6],
    ]);
    expect(windows.map((w) => [w.lineStart, w.lineEnd])).toEqual([
      [1, 5],
      [4, 6],
    ]);
    expect(windows.every((w) => w.heading === '2026-12-01')).toBe(true);
  });

  it('makes each turn of an ingested session a unit, with the heading path, and never lets a window cross sections', () => {
    const turn = (who: string, n: number) => `**${who}** (10:0${n}): message number ${n}`;
    const body = `# Conversations on 2026-12-01\n\n## Session A\n\n${[0, 1, 2, 3].map((n) => turn(n % 2 ? 'assistant' : 'user', n)).join('\n\n')}\n\n## Session B\n\n${turn('user', 4)}\n`;
    const { units, windows } = unitsAndWindows(body, 1, OPTIONS);
    expect(units.map((u) => u.heading)).toEqual([
      'Conversations on 2026-12-01',
      'Conversations on 2026-12-01 > Session A',
      'Conversations on 2026-12-01 > Session A',
      'Conversations on 2026-12-01 > Session A',
      'Conversations on 2026-12-01 > Session A',
      'Conversations on 2026-12-01 > Session B',
    ]);
    expect(units[2]!.text).toBe(turn('assistant', 1));
    // Session A has four units: two windows of three; B has one unit: none.
    expect(windows).toHaveLength(2);
    expect(windows.every((w) => w.heading.endsWith('Session A'))).toBe(true);
  });

  it('splits a long paragraph of a note at the size cap, and leaves out windows longer than the cap', () => {
    const long = Array.from({ length: 30 }, (_, i) => `Line ${i} of a long paragraph about the design of the cache layer.`).join('\n');
    const body = `# Design\n\n${long}\n\nA short closing remark.\n`;
    const { units, windows } = unitsAndWindows(body, 1, { maxChars: 500, window: 3 });
    expect(units.length).toBeGreaterThan(3);
    for (const u of units) expect(u.text.length).toBeLessThanOrEqual(500);
    for (const w of windows) expect(w.text.length).toBeLessThanOrEqual(500);
    // Every line of the body is in exactly one unit.
    expect(units.map((u) => u.text).join('\n\n')).toContain('Line 29 of a long paragraph');
  });

  it('builds no windows with window 0, and the ~maxChars chunks holding two units or more with "chunks"', () => {
    const body = 'First paragraph.\n\nSecond paragraph.\n\nThird paragraph.\n';
    expect(unitsAndWindows(body, 1, { maxChars: 1500, window: 0 }).windows).toEqual([]);
    const { units, windows } = unitsAndWindows(body, 1, { maxChars: 1500, window: 'chunks' });
    expect(units).toHaveLength(3);
    expect(windows).toEqual([{ heading: '', text: body.trim(), lineStart: 1, lineEnd: 5 }]);
  });
});

describe('toChunkRecords with units and windows', () => {
  const parse = (text: string) => parseMemory(text, { path: 'alice/episodic/day.md', defaultUser: 'alice', fallbackTime: '2024-01-01T00:00:00.000Z' });

  it('marks units and windows, with ids of their own', () => {
    const records = toChunkRecords(parse('- one\n- two\n- three\n'), OPTIONS);
    expect(records.map((r) => r.kind)).toEqual(['unit', 'unit', 'unit', 'window']);
    expect(new Set(records.map((r) => r.chunkId)).size).toBe(4);
  });

  it('marks window ids, so a window never takes the id a unit of the same text would have', () => {
    const records = toChunkRecords(parse('a\n\nb\n'), OPTIONS);
    const window = records.find((r) => r.kind === 'window')!;
    expect(window.content).toBe('a\n\nb');
    expect(window.chunkId).not.toBe(chunkId('alice/episodic/day.md', 'a\n\nb', 0));
    // A unit keeps the id a chunk of the same text had: a one-paragraph memory's row is unchanged.
    expect(records[0]!.chunkId).toBe(chunkId('alice/episodic/day.md', 'a', 0));
  });
});
