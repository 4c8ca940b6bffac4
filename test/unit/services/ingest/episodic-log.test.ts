// The day log's text: the session fingerprint, and turn text that no content can turn into log structure —
// whatever is said, the log parses, indexes each turn under its own session and reads back as said.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { toSections } from '../../../../src/memory/chunk.js';
import { conflictMarkerLine } from '../../../../src/memory/conflict.js';
import { decodeMemoryText } from '../../../../src/memory/decode.js';
import { parseMemory } from '../../../../src/memory/parse.js';
import { unitsAndWindows } from '../../../../src/memory/units.js';
import { appendedLogText, logPath, newLogText, readBackLine, renderSession, transcriptHash } from '../../../../src/services/ingest/episodic-log.js';
import type { Turn } from '../../../../src/services/ingest/transcript.js';

describe('transcriptHash', () => {
  it('is the same for roles in any case (a log written before names kept their case), and differs with the text', () => {
    const named = [
      { role: 'Caroline', content: 'I went to the support group.' },
      { role: 'assistant', content: 'How was it?' },
    ];
    const lower = named.map((t) => ({ ...t, role: t.role.toLowerCase() }));
    expect(transcriptHash(named)).toBe(transcriptHash(lower));
    expect(transcriptHash(named)).toMatch(/^[0-9a-f]{16}$/);
    expect(transcriptHash([{ ...named[0]!, content: 'I went to the library.' }, named[1]!])).not.toBe(transcriptHash(named));
  });
});

// Lines Markdown, gray-matter or the conflict check react to, and their near misses.
const HOSTILE = [
  '<<<<<<< HEAD',
  '=======',
  '>>>>>>> feature',
  '<<<<<<<',
  '>>>>>>>',
  '---',
  '--- a/src/server.ts',
  'title: front matter look-alike',
  '+++',
  '# a heading',
  '## Session 2026-12-01 10:00 UTC · fake',
  '###### deep',
  '  # indented heading',
  '\t# tab',
  '    # four spaces',
  '===',
  '=',
  '-',
  '--',
  '- item',
  '***',
  '___',
  '```',
  '```ts',
  '````',
  '~~~',
  '   ~~~~ python',
  '<!--',
  '<!-- a comment',
  '-->',
  '<div>',
  '<script>',
  '</pre>',
  '<?php',
  '<![CDATA[',
  '> quoted',
  '>',
  '\\',
  '\\#',
  '\\\\---',
  '  \\<',
  '[ref]: https://example.com',
  '**assistant** (10:00): a fake turn',
  '_Conversation from x, ingested y, 1 turns, sha256 0123456789abcdef._',
  '',
  ' ',
];

const line = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.constantFrom('\0', '\r', '\r\n', '\uD800', '\uFEFF', '\u2028', '\u00a0```') },
);
// Every transcript reader trims a turn and keeps only turns that say something.
const content = fc
  .array(line, { minLength: 1, maxLength: 10 })
  .map((ls) => ls.join('\n').trim())
  .filter((c) => c.length > 0);
const turn = fc.record({ role: fc.constantFrom('user', 'assistant', 'Maria'), content, minute: fc.integer({ min: 0, max: 59 }) });

const DAY = '2026-12-01';
const NOW = new Date(`${DAY}T12:00:00Z`);
const PATH = logPath('ann', DAY);

function toTurn(t: { role: string; content: string; minute: number }): Turn {
  return { role: t.role, content: t.content, time: `${DAY}T10:${String(t.minute).padStart(2, '0')}:00.000Z` };
}

/** What a file can hold of a text: LF line breaks, no NUL, no lone surrogate. */
function asStored(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\0/g, '\uFFFD')
    .replace(/[\uD800-\uDFFF]/gu, '\uFFFD');
}

/** Writes each turn as a session of its own into one day log, as ingest does (new file, then appends), and reads the bytes back. */
function dayLog(turns: Turn[]): string {
  let text = '';
  turns.forEach((t, i) => {
    const section = renderSession([t], { source: `claude-code:s${i}`, ingestedAt: NOW, hash: transcriptHash([t]) });
    if (i === 0) text = newLogText('ann', DAY, section, NOW).text;
    else {
      const doc = parseMemory(decodeMemoryText(Buffer.from(text, 'utf8'), PATH), { path: PATH, defaultUser: 'ann', fallbackTime: NOW.toISOString() });
      text = appendedLogText(doc, section, transcriptHash([t]), NOW)!;
    }
  });
  return decodeMemoryText(Buffer.from(text, 'utf8'), PATH);
}

describe('renderSession with hostile turn text', () => {
  it('keeps the day log parseable, free of conflict markers, and each turn under its own session heading', () => {
    fc.assert(
      fc.property(fc.array(turn, { minLength: 1, maxLength: 4 }), (raw) => {
        const turns = raw.map(toTurn);
        const text = dayLog(turns);
        expect(conflictMarkerLine(text)).toBeUndefined();
        // Nor any line git's own checks (`git diff --check`) take for a leftover conflict marker.
        expect(text).not.toMatch(/^(<{7}|={7}|>{7})/m);
        const doc = parseMemory(text, { path: PATH, defaultUser: 'ann', fallbackTime: NOW.toISOString() });
        expect(doc.meta).toMatchObject({ id: PATH.replace(/\.md$/, ''), user: 'ann', type: 'episodic' });

        // The only headings are the log's own: its title and one per session.
        const title = `Conversations on ${DAY}`;
        const sessions = turns.map((t, i) => `${title} > Session ${t.time!.slice(0, 16).replace('T', ' ')} UTC · claude-code:s${i}`);
        const sections = toSections(doc.body);
        expect(sections.map((s) => s.heading)).toEqual([title, ...sessions]);

        // Indexed: every unit sits in the section its lines are in.
        const { units } = unitsAndWindows(doc.body, doc.bodyStartLine, { maxChars: 1500 });
        const firstLine = sections.map((s) => s.blocks[0]!.line + doc.bodyStartLine - 1);
        for (const u of units) {
          const k = firstLine.filter((l) => l <= u.lineStart).length - 1;
          expect(u.heading).toBe([title, ...sessions][k]);
        }

        // Read back: each session's text, found by its heading, is the turn as it was said.
        turns.forEach((t, i) => {
          const from = sections[i + 1]!.blocks[0]!.start;
          const to = sections[i + 2]?.blocks[0]!.start ?? doc.body.length;
          const said = doc.body
            .slice(from, to)
            .replace(/^## Session [^\n]*\n\n_Conversation from [^\n]*_\n\n\*\*[^*\n]+\*\* \(\d\d:\d\d\): /, '')
            .replace(/\n+$/, '');
          expect(said.split('\n').map(readBackLine).join('\n')).toBe(asStored(t.content));
        });
      }),
      { numRuns: 200 },
    );
  }, 60_000);
});

describe('appendedLogText', () => {
  const read = (text: string) => parseMemory(text, { path: PATH, defaultUser: 'ann', fallbackTime: NOW.toISOString() });
  const later: Turn[] = [{ role: 'user', content: 'The heron service moved to port 9090.', time: `${DAY}T11:00:00.000Z` }];
  const laterHash = transcriptHash(later);
  const laterSection = renderSession(later, { source: 'claude-code:s2', ingestedAt: NOW, hash: laterHash });

  it('takes a transcript whose fingerprint a turn of the log only quotes, and refuses one the log holds', () => {
    // A pasted day log: its heading and provenance line, said inside a turn.
    const quoted = `Here is what the log said:\n${laterSection}`;
    const first: Turn[] = [{ role: 'user', content: quoted, time: `${DAY}T10:00:00.000Z` }];
    const log = newLogText('ann', DAY, renderSession(first, { source: 'claude-code:s1', ingestedAt: NOW, hash: transcriptHash(first) }), NOW).text;
    expect(log).toContain(`sha256 ${laterHash}`);
    const appended = appendedLogText(read(log), laterSection, laterHash, NOW);
    expect(appended).not.toBeNull();
    expect(appendedLogText(read(appended!), laterSection, laterHash, NOW)).toBeNull();
  });
});
