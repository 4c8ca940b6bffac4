// LoCoMo's JSON format: conversations of dated sessions of turns, and questions with evidence turn ids.
import { readFile } from 'node:fs/promises';

import { UsageError } from '../../dist/internal.js';

export interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

export interface Session {
  number: number;
  /** ISO time parsed from LoCoMo's "1:56 pm on 8 May, 2023". */
  date: string;
  dateText: string;
  turns: Turn[];
}

export interface Question {
  question: string;
  category: number;
  /** Normalised turn ids ("D3:7"). */
  evidence: string[];
}

export interface Conversation {
  id: string;
  speakers: [string, string];
  sessions: Session[];
  questions: Question[];
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" -> ISO (UTC); unparseable text gives null. */
export function parseLocomoDate(text: string): string | null {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text);
  if (!m) return null;
  const month = MONTHS.indexOf(m[5]!.toLowerCase());
  if (month < 0) return null;
  let hour = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === 'pm') hour += 12;
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))).toISOString();
}

/** Evidence ids as written are sometimes "D8:6; D9:17", "D30:05" or "D:11:26": split and normalise. */
export function normaliseEvidence(raw: unknown): string[] {
  const items = Array.isArray(raw) ? raw : [];
  const out: string[] = [];
  for (const item of items) {
    for (const piece of String(item).split(/[;,\s]+/)) {
      const m = /^D:?(\d+):0*(\d+)$/.exec(piece.trim());
      if (m) out.push(`D${Number(m[1])}:${Number(m[2])}`);
    }
  }
  return [...new Set(out)];
}

export function sessionOfTurn(turnId: string): number {
  return Number(/^D(\d+):/.exec(turnId)?.[1] ?? NaN);
}

type RawConversation = Record<string, unknown> & { speaker_a: string; speaker_b: string };
type RawSample = { sample_id: string; conversation: RawConversation; qa: Record<string, unknown>[] };

export function parseLocomo(data: unknown): Conversation[] {
  if (!Array.isArray(data)) throw new UsageError('LoCoMo data must be a JSON array of conversations');
  return (data as RawSample[]).map((sample) => {
    const conv = sample.conversation;
    const sessions: Session[] = [];
    for (const key of Object.keys(conv)) {
      const m = /^session_(\d+)$/.exec(key);
      if (!m || !Array.isArray(conv[key])) continue;
      const n = Number(m[1]);
      const dateText = String(conv[`session_${n}_date_time`] ?? '');
      const date = parseLocomoDate(dateText) ?? new Date(Date.UTC(2000, 0, n)).toISOString();
      sessions.push({ number: n, date, dateText, turns: conv[key] as Turn[] });
    }
    sessions.sort((a, b) => a.number - b.number);
    const questions = (sample.qa ?? []).map((q) => ({
      question: String(q.question ?? ''),
      category: Number(q.category),
      evidence: normaliseEvidence(q.evidence),
    }));
    return { id: sample.sample_id, speakers: [conv.speaker_a, conv.speaker_b], sessions, questions };
  });
}

export async function loadLocomo(path: string): Promise<Conversation[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read LoCoMo data at ${path}: ${(err as Error).message}`);
  }
  return parseLocomo(JSON.parse(text));
}
