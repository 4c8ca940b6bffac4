// Reads a conversation transcript: a JSON array of {role, content, time?} (or {"messages": [...]}; `timestamp` or `created_at` for time),
// or Markdown with one "role: text" line (or "## Role" heading) per turn. Pure; errors name the line.
import { z } from 'zod';

import { UsageError } from '../../errors.js';

export interface Turn {
  role: string;
  content: string;
  /** ISO 8601, when the transcript gives one. */
  time?: string;
}

export type TranscriptFormat = 'json' | 'markdown';

const role = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .regex(/^[\p{L}\p{N} ._-]+$/u, 'a role is a short name such as user or assistant');
const time = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'not a date (use ISO 8601, e.g. 2026-12-01T10:00:00Z)');
// Chat exports often call the turn's time `timestamp` or `created_at`: read as `time` (which wins), not dropped
// unseen, which dated the whole log by the day of the ingest instead of the conversation's.
const turnSchema = z
  .object({ role, content: z.string(), time: time.optional(), timestamp: time.optional(), created_at: time.optional() })
  .transform(({ timestamp, created_at, ...t }) => ({ ...t, time: t.time ?? timestamp ?? created_at }));

// The usual chat roles are one role in any case ("User" is "user"); any other role is a speaker's name and
// keeps its case: the embedding model reads "Maria" and "maria" apart, and questions name people in capitals
// (lower-cased names cost dense turn recall@10 0.568 -> 0.491 on LoCoMo dev).
const CHAT_ROLES = new Set(['user', 'assistant', 'system', 'tool', 'developer', 'function', 'human', 'ai', 'model', 'bot']);

/** A turn's role as stored: a chat role lower-cased, a speaker's name as written. */
export function roleName(raw: string): string {
  const lower = raw.toLowerCase();
  return CHAT_ROLES.has(lower) ? lower : raw;
}
// {"messages": [...]} (the chat API's shape) is read as its array.
const jsonSchema = z.preprocess(
  (d) =>
    d !== null && typeof d === 'object' && !Array.isArray(d) && Array.isArray((d as { messages?: unknown }).messages)
      ? (d as { messages: unknown[] }).messages
      : d,
  z.array(turnSchema),
);

// Known speaker names only: "Note: ..." inside a message must not start a new turn.
const ROLES = 'user|assistant|system|tool|human|ai|bot|me';
const TURN_LINE = new RegExp(`^\\s*(?:\\[([^\\]]+)\\]\\s*)?(?:\\*\\*|__)?(${ROLES})(?:\\*\\*|__)?\\s*:(?:\\*\\*|__)?\\s?(.*)$`, 'i');
const TURN_HEADING = new RegExp(`^#{1,6}\\s+(${ROLES})\\s*(?:\\(([^)]+)\\))?\\s*$`, 'i');

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

function parseJson(text: string, name: string): Turn[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    const position = /position (\d+)/.exec((err as Error).message);
    const line = position ? lineOf(text, Number(position[1])) : 1;
    throw new UsageError(`${name}:${line}: not valid JSON: ${(err as Error).message}`);
  }
  const parsed = jsonSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path;
    const where = typeof path[0] === 'number' ? `turn ${path[0] + 1}${path[1] ? ` (${String(path[1])})` : ''}` : 'top level';
    throw new UsageError(`${name}: ${where}: ${issue.message}; expected an array of {"role", "content", "time"?}`);
  }
  return parsed.data.map((t) => ({ role: roleName(t.role), content: t.content.trim(), ...(t.time ? { time: new Date(t.time).toISOString() } : {}) }));
}

function parseMarkdown(text: string, name: string): Turn[] {
  const turns: Turn[] = [];
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let current: { role: string; lines: string[]; time?: string } | null = null;
  const close = () => {
    if (current) turns.push({ role: current.role, content: current.lines.join('\n').trim(), ...(current.time ? { time: current.time } : {}) });
  };
  const timeOf = (raw: string | undefined, line: number) => {
    if (!raw) return undefined;
    const ms = Date.parse(raw);
    if (Number.isNaN(ms)) throw new UsageError(`${name}:${line}: ${JSON.stringify(raw)} is not a date (use ISO 8601)`);
    return new Date(ms).toISOString();
  };
  lines.forEach((line, i) => {
    const heading = TURN_HEADING.exec(line);
    const turn = heading ? null : TURN_LINE.exec(line);
    if (heading || turn) {
      close();
      const time = timeOf(heading ? heading[2] : turn![1], i + 1);
      current = { role: roleName(heading ? heading[1]! : turn![2]!), lines: heading ? [] : [turn![3] ?? ''], ...(time ? { time } : {}) };
    } else if (current) {
      current.lines.push(line);
    } else if (line.trim() && !/^#{1,6}\s/.test(line)) {
      // Text before the first turn (other than a title) would be lost: say where it is.
      throw new UsageError(`${name}:${i + 1}: expected a turn such as "user: ..." or "## Assistant" before this text`);
    }
  });
  close();
  return turns;
}

/** The turns of a transcript; empty turns are dropped, and a transcript without any is an error. */
export function parseTranscript(text: string, name: string, format?: TranscriptFormat): Turn[] {
  // "[2026-12-01] user: ..." is Markdown with a timestamp, "[{" or "[]" is JSON.
  const kind = format ?? (/^\s*(?:\{|\[\s*[{\]"])/.test(text) ? 'json' : 'markdown');
  const turns = (kind === 'json' ? parseJson(text, name) : parseMarkdown(text, name)).filter((t) => t.content !== '');
  if (turns.length === 0) {
    throw new UsageError(`${name}:1: no conversation turns found; expected a JSON array of {"role", "content"} or Markdown lines such as "user: ..."`);
  }
  return turns;
}
