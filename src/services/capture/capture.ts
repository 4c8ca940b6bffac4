// Use case: capture an agent session into the project's memory. New turns only: a cursor per session
// remembers how far its transcript was read, and each turn is stored once per root by its own identity (a
// resumed session repeating old turns, or a turn forgotten since, is not stored again). Secrets redacted
// (kept visible as redacted, never silently dropped), then stored like `mem ingest`: appended to the day's
// episodic log and, with an LLM, extracted through reconciliation. All under the root's capture lock.
import { redactSecrets } from '../../memory/secrets.js';
import type { AddInput, AddResult } from '../add.js';
import type { IngestInput, IngestResult } from '../ingest.js';
import type { Turn } from '../ingest/transcript.js';
import type { HookState, TextFiles, TurnLedger } from '../ports.js';
import { claudeLineTurns, mergeTurns, type LineTurn } from './agent-turns.js';
import { unknownTurns } from './turn-identity.js';

export interface CapturePorts {
  state: HookState;
  files: TextFiles;
  /** The turns this root holds or forgot, by identity. */
  ledger: TurnLedger;
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

async function store(ports: CapturePorts, user: string, source: string, lineTurns: LineTurn[]): Promise<CaptureResult> {
  const fresh = unknownTurns(lineTurns, await ports.ledger.known());
  if (fresh.length === 0) return EMPTY;
  let redacted = 0;
  const clean: Turn[] = [];
  // Merged after the known turns are dropped: an answer split over lines keeps only its new part.
  for (const t of mergeTurns(fresh.map((k) => k.turn))) {
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
  // Only once the log is committed: a failure above leaves the turns unknown, and the next hook stores them.
  await ports.ledger.record(fresh.flatMap((k) => k.keys.map((key) => ({ key, path: result.log.path }))));
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
  /** Whether turns said in this folder belong to this root (a session that moved between projects); absent: all do. */
  belongsHere?: (cwd: string) => Promise<boolean>;
}

/** The turns said in this root's project: a session that moved from another repository leaves those turns to it. */
async function saidHere(turns: LineTurn[], belongsHere: TranscriptCapture['belongsHere']): Promise<LineTurn[]> {
  if (!belongsHere) return turns;
  const verdicts = new Map<string, Promise<boolean>>();
  const keep = await Promise.all(
    turns.map((t) => {
      if (!t.cwd) return true;
      if (!verdicts.has(t.cwd)) verdicts.set(t.cwd, belongsHere(t.cwd));
      return verdicts.get(t.cwd)!;
    }),
  );
  return turns.filter((_, i) => keep[i]);
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
    const result = await store(ports, input.user, input.source, await saidHere(claudeLineTurns(lines.slice(from)), input.belongsHere));
    // Only after the turns are stored: a failure leaves the cursor, and the next hook retries them.
    return { cursor: { lines: lines.length }, result };
  });
}

/** Captures turns an agent handed over directly (Codex notify, Gemini AfterAgent). */
export async function captureTurns(ports: CapturePorts, input: { user: string; source: string; turns: Turn[] }): Promise<CaptureResult> {
  return ports.state.exclusive(() =>
    store(
      ports,
      input.user,
      input.source,
      input.turns.map((turn) => ({ turn })),
    ),
  );
}
