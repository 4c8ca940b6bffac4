// Use case: capture an agent session into the project's memory. New turns only (a cursor per session
// remembers how far its transcript was captured, so a turn is captured once however often the hooks
// fire), secrets redacted (kept visible as redacted, never silently dropped), then stored like
// `mem ingest`: appended to the day's episodic log and, with an LLM, extracted through reconciliation.
import { redactSecrets } from '../../memory/secrets.js';
import type { AddInput, AddResult } from '../add.js';
import type { IngestInput, IngestResult } from '../ingest.js';
import type { Turn } from '../ingest/transcript.js';
import type { HookState, TextFiles } from '../ports.js';
import { claudeTurns } from './agent-turns.js';

export interface CapturePorts {
  state: HookState;
  files: TextFiles;
  ingest(input: IngestInput): Promise<IngestResult>;
  /** Stores a memory in the person's own memory: extracted preferences go there, not to the project. */
  addPersonal?: (input: AddInput) => Promise<AddResult>;
}

export interface CaptureResult {
  turns: number;
  /** How many secrets were redacted from the captured text. */
  redacted: number;
  log?: IngestResult['log'];
  extraction?: IngestResult['extraction']['status'];
  memories: number;
  warnings: string[];
}

const EMPTY: CaptureResult = { turns: 0, redacted: 0, memories: 0, warnings: [] };

async function store(ports: CapturePorts, user: string, source: string, turns: Turn[]): Promise<CaptureResult> {
  if (turns.length === 0) return EMPTY;
  let redacted = 0;
  const clean: Turn[] = [];
  for (const t of turns) {
    const r = await redactSecrets(t.content);
    redacted += r.findings.length;
    clean.push({ ...t, content: r.text });
  }
  const personal = ports.addPersonal;
  const result = await ports.ingest({
    user,
    source,
    text: JSON.stringify(clean),
    format: 'json',
    ...(personal ? { routeTo: (kind) => (kind === 'preference' ? personal : undefined) } : {}),
  });
  return {
    turns: clean.length,
    redacted,
    log: result.log,
    extraction: result.extraction.status,
    memories: result.extraction.memories.length,
    warnings: result.extraction.warnings,
  };
}

export interface TranscriptCapture {
  /** Identifies the session's cursor, e.g. "claude-code:<session id>". */
  key: string;
  transcriptPath: string;
  user: string;
  /** Provenance of the episodic log section and the extracted memories. */
  source: string;
}

/** The transcript's complete lines (a last line still being written is left for the next capture). */
function completeLines(text: string): string[] {
  const end = text.lastIndexOf('\n');
  return end < 0 ? [] : text.slice(0, end).split('\n');
}

/** Captures the lines of a Claude Code transcript that no earlier capture of this session took. */
export async function captureTranscript(ports: CapturePorts, input: TranscriptCapture): Promise<CaptureResult> {
  return ports.state.withCursor(input.key, async (cursor) => {
    const text = await ports.files.read(input.transcriptPath);
    if (text === null) return { cursor, result: { ...EMPTY, warnings: [`no transcript at ${input.transcriptPath}`] } };
    const lines = completeLines(text);
    // A transcript shorter than the cursor was replaced: read it again (the log skips what it holds).
    const from = cursor.lines <= lines.length ? cursor.lines : 0;
    const result = await store(ports, input.user, input.source, claudeTurns(lines.slice(from)));
    // Only after the turns are stored: a failure leaves the cursor, and the next hook retries them.
    return { cursor: { lines: lines.length }, result };
  });
}

/** Captures turns an agent handed over directly (Codex notify, Gemini AfterAgent). */
export async function captureTurns(ports: CapturePorts, input: { user: string; source: string; turns: Turn[] }): Promise<CaptureResult> {
  return store(ports, input.user, input.source, input.turns);
}
