// The coding agents' hook protocols as data: which event of each agent means session start, prompt or
// capture, how a hook's input becomes a payload and what it names (session, folder, prompt, transcript),
// what a capture reads from it, and what the hook prints back for the agent. Pure: the I/O stays with the caller.
import { UsageError } from '../../errors.js';
import type { Turn } from '../ingest/transcript.js';
import { codexNotifyTurns, geminiAfterAgentTurns } from './agent-turns.js';
import type { CaptureResult } from './capture.js';

/** What a hook does: give the session its context, recall for a prompt, or capture the new turns. */
export type HookKind = 'context' | 'prompt' | 'capture';

const EVENTS: Record<string, Record<string, HookKind>> = {
  'claude-code': { 'session-start': 'context', prompt: 'prompt', stop: 'capture', 'pre-compact': 'capture', 'session-end': 'capture' },
  gemini: { 'session-start': 'context', 'after-agent': 'capture' },
  codex: { notify: 'capture' },
};

/** The kind of an agent's hook event, or undefined for one memdir does not know. */
export function hookKind(agent: string, event: string): HookKind | undefined {
  // Own keys only: `toString` or `constructor` would otherwise find what every object inherits.
  const events = Object.hasOwn(EVENTS, agent) ? EVENTS[agent]! : undefined;
  return events && Object.hasOwn(events, event) ? events[event] : undefined;
}

export function unknownHookMessage(agent: string, event: string): string {
  return `unknown hook ${agent} ${event}; known: ${Object.entries(EVENTS)
    .map(([a, e]) => `${a} (${Object.keys(e).join(', ')})`)
    .join('; ')}`;
}

/** A hook's JSON input as the agent sent it (stdin, or Codex's trailing argument). */
export type HookPayload = Record<string, unknown>;

/** An empty input is an empty payload; anything but a JSON object is refused (a SyntaxError for bad JSON). */
export function parseHookPayload(text: string): HookPayload {
  if (!text.trim()) return {};
  const data = JSON.parse(text) as unknown;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new Error('the hook input is not a JSON object');
  return data as HookPayload;
}

/** What the hook hands the background capture (in a held file): enough to run it again later. */
export interface HeldHookInput {
  agent: string;
  event: string;
  user: string;
  payload: HookPayload;
}

/** A held file's text as a held input; `file` names it in the error when it is not one. */
export function parseHeldInput(text: string, file: string): HeldHookInput {
  const held = parseHookPayload(text) as Partial<HeldHookInput>;
  if (
    typeof held.agent !== 'string' ||
    typeof held.event !== 'string' ||
    typeof held.user !== 'string' ||
    typeof held.payload !== 'object' ||
    held.payload === null
  )
    throw new UsageError(`${file}: not a held hook input`);
  return held as HeldHookInput;
}

const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

/** The session an input belongs to, as the hook log records it (Codex names it a thread). */
export const hookSession = (p: HookPayload): string | undefined => str(p.session_id) ?? str(p['thread-id']);
/** The folder the agent works in, when the input says. */
export const hookCwd = (p: HookPayload): string | undefined => str(p.cwd);
/** The person's prompt (Claude Code's UserPromptSubmit). */
export const hookPrompt = (p: HookPayload): string | undefined => str(p.prompt);

/** The answer a hook prints for Claude Code (Gemini CLI reads the same shape): context added to the model's input. */
export function additionalContext(hookEventName: 'SessionStart' | 'UserPromptSubmit', text: string) {
  return { hookSpecificOutput: { hookEventName, additionalContext: text } };
}

/** What a hook ends with: what it prints for the agent, and what its log entry says. */
export interface HookOutcome {
  output?: unknown;
  detail?: string;
  error?: string;
  hint?: string;
}

/** What a capture reads: Claude Code's transcript file (incrementally), or the turns the input itself holds. */
export type CaptureSource = { transcript: { key: string; transcriptPath: string; source: string } } | { source: string; turnsAt: (now: Date) => Turn[] };

/** The capture an input asks for; a Claude Code input without its transcript is a usage error (no retry can help). */
export function captureSource(agent: string, event: string, payload: HookPayload): CaptureSource {
  if (agent === 'claude-code') {
    const transcriptPath = str(payload.transcript_path);
    if (!transcriptPath) throw new UsageError(`the ${event} hook input has no transcript_path`);
    const session = str(payload.session_id) ?? 'unknown';
    return { transcript: { key: `claude-code:${session}`, transcriptPath, source: `claude-code:${session}` } };
  }
  const session = str(payload['thread-id']) ?? str(payload.session_id) ?? 'unknown';
  return {
    source: `${agent}:${session}`,
    turnsAt: (now) => (agent === 'codex' ? codexNotifyTurns(payload, now) : geminiAfterAgentTurns(payload, now)),
  };
}

/** A capture's outcome in one line of the hook log. */
export function describeCapture(r: CaptureResult): string {
  if (r.turns === 0) return `nothing new to capture${r.warnings.length ? ` (${r.warnings.join('; ')})` : ''}`;
  const more = r.log?.parts ? ` (and ${r.log.parts.length - 1} more files: the day is over the file size limit)` : '';
  const parts = [`captured ${r.turns} turns into ${r.log?.path ?? '?'}${more}${r.log && !r.log.appended ? ' (already there)' : ''}`];
  if (r.redacted) parts.push(`${r.redacted} secret(s) redacted`);
  if (r.extraction && r.extraction !== 'offline') parts.push(`extraction ${r.extraction}: ${r.memories} memories`);
  return parts.join('; ');
}
