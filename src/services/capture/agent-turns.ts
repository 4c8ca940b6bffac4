// Conversation turns from what coding agents hand their hooks: Claude Code's JSONL transcript, Codex's
// notify payload, Gemini CLI's AfterAgent payload. Only what the person and the agent said is kept
// (no tool calls or results, no thinking, no meta messages). Pure.
import type { Turn } from '../ingest/transcript.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function isoTime(v: unknown): string | undefined {
  const s = str(v);
  if (!s) return undefined;
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

// Claude Code writes slash commands and their output into the transcript as user messages in tags.
const COMMAND_ECHO = /^\s*<(command-name|command-message|command-args|local-command-stdout|local-command-stderr)>/;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b): b is Json => isObject(b) && b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
}

/** Consecutive turns of one role (an assistant answer split over several lines) become one. */
export function mergeTurns(turns: Turn[]): Turn[] {
  const out: Turn[] = [];
  for (const t of turns) {
    const last = out[out.length - 1];
    if (last && last.role === t.role) last.content = `${last.content}\n\n${t.content}`;
    else out.push({ ...t });
  }
  return out;
}

/** A turn as its transcript line gave it, with the message's own id when the agent gives one. */
export interface LineTurn {
  turn: Turn;
  uuid?: string;
  /** The folder the agent was working in when the turn was said. */
  cwd?: string;
}

/** One line of a Claude Code transcript as a turn, or null for everything that is not said text. */
export function claudeLineTurn(line: string): LineTurn | null {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return null; // a line being written, or not JSON: skipped
  }
  if (!isObject(entry) || (entry.type !== 'user' && entry.type !== 'assistant')) return null;
  if (entry.isMeta === true || entry.isSidechain === true || !isObject(entry.message)) return null;
  const role = entry.type;
  const content = textOf(entry.message.content).trim();
  if (!content || COMMAND_ECHO.test(content)) return null;
  const time = isoTime(entry.timestamp);
  const uuid = str(entry.uuid);
  const cwd = str(entry.cwd);
  return { turn: { role, content, ...(time ? { time } : {}) }, ...(uuid ? { uuid } : {}), ...(cwd ? { cwd } : {}) };
}

/** The said turns of these Claude Code transcript lines (JSONL), one per line, in order. */
export function claudeLineTurns(lines: string[]): LineTurn[] {
  return lines.map(claudeLineTurn).filter((t): t is LineTurn => t !== null);
}

/** The turns of these Claude Code transcript lines (JSONL), in order. */
export function claudeTurns(lines: string[]): Turn[] {
  return mergeTurns(claudeLineTurns(lines).map((t) => t.turn));
}

/** Codex's notify payload (`agent-turn-complete`): the turn's user input and the agent's last message. */
export function codexNotifyTurns(payload: unknown, now: Date): Turn[] {
  if (!isObject(payload) || payload.type !== 'agent-turn-complete') return [];
  const time = now.toISOString();
  const inputs = Array.isArray(payload['input-messages']) ? payload['input-messages'].filter((m): m is string => typeof m === 'string') : [];
  const answer = str(payload['last-assistant-message']);
  const turns: Turn[] = inputs.map((content) => ({ role: 'user', content: content.trim(), time }));
  if (answer) turns.push({ role: 'assistant', content: answer.trim(), time });
  return mergeTurns(turns.filter((t) => t.content));
}

/** Gemini CLI's AfterAgent payload: the prompt and the final response of one agent turn. */
export function geminiAfterAgentTurns(payload: unknown, now: Date): Turn[] {
  if (!isObject(payload)) return [];
  const time = isoTime(payload.timestamp) ?? now.toISOString();
  const turns: Turn[] = [];
  const prompt = str(payload.prompt)?.trim();
  const response = str(payload.prompt_response)?.trim();
  if (prompt) turns.push({ role: 'user', content: prompt, time });
  if (response) turns.push({ role: 'assistant', content: response, time });
  return turns;
}
