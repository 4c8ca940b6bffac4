// Use case: ingest a conversation. The transcript is appended to the user's episodic log for its day
// (atomic write, index, one commit); with an LLM, the memories worth keeping are extracted and each goes
// through add (and so through write-time reconciliation). Offline, only the log is written.
import { InvalidMemoryError, UsageError, errorMessage } from '../errors.js';
import { decodeMemoryText } from '../memory/decode.js';
import { assertUserId } from '../memory/ids.js';
import type { MemoryDoc, MemoryType } from '../memory/model.js';
import { parseMemory } from '../memory/parse.js';
import { assertNoSecrets } from '../memory/secrets.js';
import { addMemory, type AddInput, type AddResult } from './add.js';
import { commitMessage } from './core/commit-message.js';
import type { DepsUsing } from './core/deps.js';
import type { PurgeIndex } from './core/purge.js';
import type { IndexSearcher } from './ports.js';
import { beginWrite, undoOnFailure } from './core/interrupted-write.js';
import { writeLocked } from './write-locked.js';
import { syncIndex } from './core/sync.js';
import { appendedLogText, logPath, newLogText, renderSession, sessionDay, transcriptHash } from './ingest/episodic-log.js';
import { PART_SLACK, splitSession } from './ingest/day-parts.js';
import { extractMemories } from './ingest/extract.js';
import type { MemoryKind } from './ingest/extract-prompt.js';
import { parseTranscript, type TranscriptFormat, type Turn } from './ingest/transcript.js';

/** Ingesting writes like an add (it adds the memories it extracts). */
type IngestDeps = DepsUsing<PurgeIndex & IndexSearcher>;

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
    /** When the day went on in more files (over the file size limit), all the files written, `path` first. */
    parts?: string[];
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

/** The day's log files that exist (`<day>.md`, then `<day>-2.md`…), parsed; an unparsable one stops with its line. */
async function dayFiles(deps: IngestDeps, user: string, day: string, now: Date) {
  const found: { path: string; part: number; doc: MemoryDoc; bytes: number }[] = [];
  for (let part = 1; ; part++) {
    const path = logPath(user, day, part);
    if (!(await deps.files.stat(path))) return found;
    const raw = await deps.files.read(path);
    // An existing log that does not parse stays as it is: the error names its line, nothing is overwritten.
    const doc = parseMemory(decodeMemoryText(raw, path), { path, defaultUser: deps.defaultUser, fallbackTime: now.toISOString() });
    found.push({ path, part, doc, bytes: raw.byteLength });
  }
}

async function appendToLog(deps: IngestDeps, user: string, turns: Turn[], source: string): Promise<IngestResult['log']> {
  const now = deps.now();
  const day = sessionDay(turns, now);
  const hash = transcriptHash(turns);
  const provenance = { source, ingestedAt: now, hash };
  const size = (ts: Turn[]) => Buffer.byteLength(renderSession(ts, provenance));
  return writeLocked(deps, async () => {
    const existing = await dayFiles(deps, user, day, now);
    const there = existing.find((f) => f.doc.body.includes(`sha256 ${hash}`));
    if (there) {
      // Logged before: whatever a run before this one left undone (the index, the commit) is finished now.
      await indexAndCommit(deps, [there.path], { id: there.doc.meta.id, user, source, turns: String(turns.length) }, true);
      return { id: there.doc.meta.id, path: there.path, appended: false };
    }
    const last = existing.at(-1);
    const room = deps.maxFileBytes - PART_SLACK;
    const groups = splitSession(turns, size, last ? room - last.bytes : room, room);
    const writes = new Map<string, { id: string; text: string }>();
    let part = last?.part ?? 0;
    groups.forEach((group, i) => {
      if (group.length === 0) return;
      const section = renderSession(group, provenance);
      if (i === 0 && last) {
        writes.set(last.path, { id: last.doc.meta.id, text: appendedLogText(last.doc, section, hash, now)! });
        return;
      }
      part += 1;
      writes.set(logPath(user, day, part), newLogText(user, day, section, now, part));
    });
    const paths = [...writes.keys()];
    const first = writes.get(paths[0]!)!;
    const undo = await beginWrite(deps, 'INGEST', paths, now);
    // All or nothing: a log that does not index or commit (a git merge under way, a refusing hook) is put back.
    await undoOnFailure(deps, paths, undo, async () => {
      for (const [path, { text }] of writes) await deps.files.write(path, text);
      await indexAndCommit(deps, paths, { id: first.id, user, source, turns: String(turns.length) });
    });
    return { id: first.id, path: paths[0]!, appended: true, ...(paths.length > 1 ? { parts: paths } : {}) };
  });
}

async function indexAndCommit(deps: IngestDeps, paths: string[], fields: Record<string, string>, onlyUncommitted = false): Promise<void> {
  const report = await syncIndex(deps, { only: paths });
  const problem = report.errors.find((e) => paths.includes(e.path));
  if (problem) throw new InvalidMemoryError(problem.path, problem.line, problem.message);
  const commit = onlyUncommitted ? await deps.audit.uncommitted(paths) : paths;
  if (commit.length > 0) await deps.audit.commit(commit, await commitMessage('INGEST', fields));
}

export async function ingestConversation(deps: IngestDeps, input: IngestInput): Promise<IngestResult> {
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
