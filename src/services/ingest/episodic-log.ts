// The user's episodic log: one Markdown memory per day (<user>/episodic/YYYY-MM-DD.md), one "## Session"
// section per ingested conversation, with its provenance. Pure: builds text, the use case writes it.
import { sha256 } from '../../memory/hash.js';
import { isValidMemoryId } from '../../memory/ids.js';
import { memoryPath } from '../../memory/layout.js';
import type { MemoryDoc, MemoryMeta } from '../../memory/model.js';
import { serializeMemory } from '../../memory/serialize.js';
import type { Turn } from './transcript.js';

/** The day a session belongs to: its first timed turn's, else the ingest time's (UTC). */
export function sessionDay(turns: Turn[], now: Date): string {
  return (turns.find((t) => t.time)?.time ?? now.toISOString()).slice(0, 10);
}

/** The day's log; a day too long for one file goes on in part 2, 3… (`<day>-2.md`). */
export function logPath(user: string, day: string, part = 1): string {
  return memoryPath(user, 'episodic', part > 1 ? `${day}-${part}` : day);
}

/** The fingerprint written into each session's provenance line: the same transcript is not logged twice. */
export function transcriptHash(turns: Turn[]): string {
  // Roles hashed lower-cased: a transcript ingested before speakers' names kept their case is still the same one.
  return sha256(JSON.stringify(turns.map((t) => ({ ...t, role: t.role.toLowerCase() })))).slice(0, 16);
}

// A line of said text that starts (after up to three spaces or tabs) with one of these would be read as the
// log's structure, not as text: a heading (`#`, or a line of `=` or `-` under a paragraph), a front matter
// fence (`---`), git's conflict markers (the log would be refused as unmerged and every later capture with
// it), an HTML block or a code fence (left open, either swallows every later session), or a backslash
// (so that the escape below can be undone exactly).
const STRUCTURE = /^([ \t]{0,3})(?=[#<\\]|>{7}|`{3}|~{3}|-{3}|=+[ \t]*$|-+[ \t]*$)/;
const ESCAPED = /^([ \t]{0,3})\\/;

/**
 * A backslash in front makes such a line plain text: CommonMark's own escape, so the Markdown still says
 * what was said (`\#` reads `#`, `\\` reads `\`), and readBackLine undoes it exactly.
 */
function escapeLine(line: string): string {
  return line.replace(STRUCTURE, '$1\\');
}

/** A line of a turn as it was said, from its line in the log. */
export function readBackLine(line: string): string {
  return line.replace(ESCAPED, '$1');
}

/**
 * A turn's text as a file can hold it: Markdown reads a lone CR as a line break (and the file is read back
 * with LF only), a NUL byte would make the log a binary file, and UTF-8 has no lone surrogate.
 */
function storable(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\0/g, '\uFFFD')
    .replace(/[\uD800-\uDFFF]/gu, '\uFFFD');
}

export function renderSession(turns: Turn[], provenance: { source: string; ingestedAt: Date; hash: string }): string {
  const start = turns.find((t) => t.time)?.time;
  const title = `## Session ${start ? `${start.slice(0, 16).replace('T', ' ')} UTC` : provenance.ingestedAt.toISOString().slice(0, 16).replace('T', ' ') + ' UTC (ingested)'} · ${provenance.source}`;
  const note = `_Conversation from ${provenance.source}, ingested ${provenance.ingestedAt.toISOString()}, ${turns.length} turns, sha256 ${provenance.hash}._`;
  const body = turns.map((t) => {
    const when = t.time ? ` (${t.time.slice(11, 16)})` : '';
    return `**${t.role}**${when}: ${storable(t.content).split('\n').map(escapeLine).join('\n')}`;
  });
  return [title, '', note, '', body.join('\n\n')].join('\n');
}

/** A new day file (or part of a day) holding its first session. */
export function newLogText(user: string, day: string, section: string, now: Date, part = 1): { id: string; text: string } {
  const pathId = logPath(user, day, part).replace(/\.md$/, '');
  const id = isValidMemoryId(pathId) ? pathId : `conversations-${day}${part > 1 ? `-${part}` : ''}-${sha256(user).slice(0, 8)}`;
  const meta: MemoryMeta = {
    id,
    user,
    type: 'episodic',
    importance: 0.3,
    status: 'active',
    created: now.toISOString(),
    updated: now.toISOString(),
    tags: ['conversation'],
    source: 'ingest',
    extra: {},
  };
  return { id, text: serializeMemory(meta, `# Conversations on ${day}${part > 1 ? ` (part ${part})` : ''}\n\n${section}\n`) };
}

/**
 * Whether the log holds that transcript: its fingerprint in the provenance line right under a session's
 * heading. Said text may quote a fingerprint (a pasted log), but never with that heading above it: a turn's
 * `#` lines are escaped.
 */
function holdsTranscript(body: string, hash: string): boolean {
  const fingerprint = hash.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^## Session .*\\n\\n_Conversation from .*, sha256 ${fingerprint}\\._$`, 'm').test(body);
}

/** An existing day file with one more session; null when that transcript is already in it. */
export function appendedLogText(doc: MemoryDoc, section: string, hash: string, now: Date): string | null {
  if (holdsTranscript(doc.body, hash)) return null;
  return serializeMemory({ ...doc.meta, updated: now.toISOString() }, `${doc.body.trimEnd()}\n\n${section}\n`);
}
