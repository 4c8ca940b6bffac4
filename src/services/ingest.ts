// Use case: ingest a conversation. The transcript is appended to the user's episodic log for its day
// (atomic write, index, one commit); with an LLM, the memories worth keeping are extracted and each goes
// through add (and so through write-time reconciliation). Offline, only the log is written.
import { InvalidMemoryError, UsageError, errorMessage } from '../errors.js';
import { decodeMemoryText } from '../memory/decode.js';
import { assertUserId } from '../memory/ids.js';
import type { MemoryType } from '../memory/model.js';
import { parseMemory } from '../memory/parse.js';
import { assertNoSecrets } from '../memory/secrets.js';
import { addMemory, type AddInput, type AddResult } from './add.js';
import { commitMessage } from './core/commit-message.js';
import type { MemoryDeps } from './core/deps.js';
import { writeLocked } from './core/interrupted-write.js';
import { syncIndex } from './core/sync.js';
import { appendedLogText, logPath, newLogText, renderSession, sessionDay, transcriptHash } from './ingest/episodic-log.js';
import { extractMemories } from './ingest/extract.js';
import type { MemoryKind } from './ingest/extract-prompt.js';
import { parseTranscript, type TranscriptFormat, type Turn } from './ingest/transcript.js';

export interface IngestInput {
  user: string;
  /** The transcript's text. */
  text: string;
  /** Where it came from (a file name): provenance in the log and in each extracted memory's source. */
  source: string;
  /** Default: JSON when the text starts like a JSON array or object, else Markdown. */
  format?: TranscriptFormat;
  /** Store the transcript (and extracted memories) even if they look like they contain a secret. */
  allowSecrets?: boolean;
  /** Where extracted memories of a kind go instead of this root (an agent session's preferences: personal memory). */
  routeTo?: (kind: MemoryKind) => ((input: AddInput) => Promise<AddResult>) | undefined;
}

export interface IngestedMemory extends AddResult {
  text: string;
  kind: MemoryKind;
  importance: number;
}

export interface IngestResult {
  user: string;
  turns: number;
  log: {
    id: string;
    path: string;
    /** False when this transcript was already in the log (it is not written twice). */
    appended: boolean;
  };
  extraction: {
    /** offline: no LLM configured; failed: no part of the transcript could be extracted. */
    status: 'offline' | 'done' | 'failed';
    model?: string;
    memories: IngestedMemory[];
    warnings: string[];
  };
}

const TYPE_OF_KIND: Record<MemoryKind, MemoryType> = { preference: 'semantic', fact: 'semantic', decision: 'semantic', event: 'episodic' };

function checkSource(source: string): string {
  const s = source.trim();
  if (!s || s.length > 200 || /[\n\r]/.test(s)) throw new UsageError('the transcript source must be a short one-line name');
  return s;
}

async function appendToLog(deps: MemoryDeps, user: string, turns: Turn[], source: string): Promise<IngestResult['log']> {
  const now = deps.now();
  const day = sessionDay(turns, now);
  const path = logPath(user, day);
  const hash = transcriptHash(turns);
  const section = renderSession(turns, { source, ingestedAt: now, hash });
  return writeLocked(deps, async () => {
    let id: string;
    let text: string | null;
    if (await deps.files.stat(path)) {
      // An existing log that does not parse stays as it is: the error names its line, nothing is overwritten.
      const doc = parseMemory(decodeMemoryText(await deps.files.read(path), path), { path, defaultUser: deps.defaultUser, fallbackTime: now.toISOString() });
      id = doc.meta.id;
      text = appendedLogText(doc, section, hash, now);
    } else {
      ({ id, text } = newLogText(user, day, section, now));
    }
    if (text === null) return { id, path, appended: false };
    await deps.files.write(path, text);
    const report = await syncIndex(deps, { only: [path] });
    const problem = report.errors.find((e) => e.path === path);
    if (problem) throw new InvalidMemoryError(path, problem.line, problem.message);
    await deps.audit.commit([path], await commitMessage('INGEST', { id, user, source, turns: String(turns.length) }));
    return { id, path, appended: true };
  });
}

export async function ingestConversation(deps: MemoryDeps, input: IngestInput): Promise<IngestResult> {
  assertUserId(input.user);
  const source = checkSource(input.source);
  const turns = parseTranscript(input.text, source, input.format);
  // Checked before anything is written: the log is plain Markdown committed to git, like any memory.
  if (!input.allowSecrets) await assertNoSecrets(turns.map((t) => t.content).join('\n'));
  const log = await appendToLog(deps, input.user, turns, source);
  const result: IngestResult = { user: input.user, turns: turns.length, log, extraction: { status: 'offline', memories: [], warnings: [] } };
  if (!deps.llm) return result;

  // Outside the write lock: an LLM call takes seconds, and other writers should not wait for it.
  const extraction = await extractMemories(deps.llm, turns, { source, day: sessionDay(turns, deps.now()) });
  result.extraction = {
    status: extraction.windows > 0 && extraction.failedWindows === extraction.windows ? 'failed' : 'done',
    model: deps.llm.model,
    memories: [],
    warnings: extraction.warnings,
  };
  for (const m of extraction.memories) {
    try {
      const add: AddInput = {
        text: m.text,
        user: input.user,
        type: TYPE_OF_KIND[m.kind],
        importance: m.importance,
        tags: [m.kind, ...(m.tags ?? []).filter((t) => t !== m.kind)],
        source: `ingest:${source}`,
        ...(m.key ? { key: m.key } : {}),
        ...(input.allowSecrets ? { allowSecrets: true } : {}),
      };
      const elsewhere = input.routeTo?.(m.kind);
      const added = elsewhere ? await elsewhere(add) : await addMemory(deps, add);
      result.extraction.memories.push({ ...added, text: m.text, kind: m.kind, importance: m.importance });
    } catch (err) {
      // One memory that cannot be stored (say, refused as a secret) does not cost the others.
      result.extraction.warnings.push(`not stored: ${JSON.stringify(m.text.slice(0, 80))}: ${errorMessage(err)}`);
    }
  }
  return result;
}
