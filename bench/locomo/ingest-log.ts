// Writes a LoCoMo conversation the way `mem ingest` stores conversations (one episodic day log per
// session date, one "## Session" section per session, the chunker splitting it at its own size), and
// maps a retrieved chunk back to the dialog turns whose lines it covers.
import { appendedLogText, logPath, newLogText, parseMemory, parseTranscript, renderSession, sessionDay, transcriptHash } from '../../dist/internal.js';
import type { Conversation } from './dataset.js';

export interface LogFile {
  path: string;
  text: string;
  /** Each turn's dialog id and its 1-based line range in the file (front matter included). */
  turns: { id: string; start: number; end: number }[];
}

/** The day logs of a conversation for `user`, each session ingested as its own transcript, in order. */
export function conversationLogs(conversation: Conversation, user: string): LogFile[] {
  const files = new Map<string, { text: string; ids: string[] }>();
  for (const session of conversation.sessions) {
    // Through the transcript parser, as `mem ingest chat.json` would read it (roles lowercased, times normalised).
    const raw = session.turns.map((t) => ({
      role: t.speaker,
      content: `${t.text}${t.blip_caption ? ` [shares an image: ${t.blip_caption}]` : ''}`,
      time: session.date,
    }));
    const source = `session-${String(session.number).padStart(2, '0')}.json`;
    const turns = parseTranscript(JSON.stringify(raw), source, 'json');
    const kept = session.turns.filter((t) => `${t.text}${t.blip_caption ?? ''}`.trim() !== '').map((t) => t.dia_id);
    const at = new Date(session.date);
    const day = sessionDay(turns, at);
    const path = logPath(user, day);
    const section = renderSession(turns, { source, ingestedAt: at, hash: transcriptHash(turns) });
    const current = files.get(path);
    if (current) {
      const doc = parseMemory(current.text, { path, defaultUser: user, fallbackTime: at.toISOString() });
      files.set(path, { text: appendedLogText(doc, section, transcriptHash(turns), at) ?? current.text, ids: [...current.ids, ...kept] });
    } else {
      files.set(path, { text: newLogText(user, day, section, at).text, ids: kept });
    }
  }
  return [...files].map(([path, { text, ids }]) => ({ path, text, turns: turnLines(text, ids) }));
}

// A rendered turn starts with its role in bold: "**caroline** (13:56): ...".
const TURN_START = /^\*\*[^*]+\*\*(?: \(\d{2}:\d{2}\))?: /;

/** Line ranges of the turns, in file order: a turn runs until the line before the next turn or section. */
export function turnLines(text: string, ids: string[]): LogFile['turns'] {
  const lines = text.split('\n');
  const starts: number[] = [];
  lines.forEach((line, i) => {
    if (TURN_START.test(line)) starts.push(i + 1);
  });
  if (starts.length !== ids.length) throw new Error(`expected ${ids.length} turns, found ${starts.length}`);
  return ids.map((id, i) => {
    let end = (starts[i + 1] ?? lines.length + 1) - 1;
    while (end > starts[i]! && (lines[end - 1]!.trim() === '' || lines[end - 1]!.startsWith('## ') || lines[end - 1]!.startsWith('_Conversation'))) end--;
    return { id, start: starts[i]!, end };
  });
}

/** The turns a chunk covering lines [start, end] of a log stands for, in file order. */
export function turnsOfLines(file: LogFile['turns'], start: number, end: number): string[] {
  return file.filter((t) => t.end >= start && t.start <= end).map((t) => t.id);
}
