// Splitting a day's conversation into files under the size limit: no piece over its room, nothing lost or reordered.
import { describe, expect, it } from 'vitest';

import { splitSession, splitText } from '../../../../src/services/ingest/day-parts.js';
import { renderSession } from '../../../../src/services/ingest/episodic-log.js';
import type { Turn } from '../../../../src/services/ingest/transcript.js';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const provenance = { source: 'test', ingestedAt: new Date('2026-12-04T12:00:00Z'), hash: '0123456789abcdef' };
const size = (turns: Turn[]) => bytes(renderSession(turns, provenance));

describe('splitText', () => {
  it('cuts at line ends when it can, never inside a character, and loses nothing', () => {
    const text = `${'a'.repeat(30)}\n${'é'.repeat(40)}\nend`;
    const pieces = splitText(text, 32);
    expect(pieces.join('')).toBe(text);
    for (const p of pieces) expect(bytes(p)).toBeLessThanOrEqual(32);
    expect(pieces[0]).toBe(`${'a'.repeat(30)}\n`);
  });
});

describe('splitSession', () => {
  const turns: Turn[] = Array.from({ length: 30 }, (_, i) => ({
    role: i % 2 ? 'assistant' : 'user',
    content: `turn ${i} ${'x'.repeat(900)}`,
    time: '2026-12-04T09:00:00.000Z',
  }));

  it('fills the room left in the last file first, then new files, each section within its room', () => {
    const groups = splitSession(turns, size, 3_000, 10_000);
    expect(groups.flat()).toEqual(turns);
    expect(size(groups[0]!)).toBeLessThanOrEqual(3_000);
    for (const g of groups.slice(1)) expect(size(g)).toBeLessThanOrEqual(10_000);
    expect(groups.length).toBeGreaterThan(3);
  });

  it('leaves the last file alone when not even one turn fits there', () => {
    const groups = splitSession(turns.slice(0, 2), size, 100, 10_000);
    expect(groups[0]).toEqual([]);
    expect(groups.slice(1).flat()).toEqual(turns.slice(0, 2));
  });

  it('cuts a turn larger than any file into pieces that each fit, in order', () => {
    const huge: Turn = { role: 'user', content: Array.from({ length: 2_000 }, (_, i) => `line ${i}`).join('\n') };
    const groups = splitSession([huge], size, 4_000, 4_000);
    expect(groups.length).toBeGreaterThan(3);
    for (const g of groups) expect(size(g)).toBeLessThanOrEqual(4_000);
    expect(
      groups
        .flat()
        .map((t) => t.content)
        .join(''),
    ).toBe(huge.content);
  });
});
