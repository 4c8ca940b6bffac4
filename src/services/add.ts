// Use case: add a memory with write-time reconciliation: ADD a new file, UPDATE an existing one, SUPERSEDE
// an older one (both files change), or NOOP; index what changed and commit it with the decision and reason.
import { InvalidMemoryError, UsageError } from '../errors.js';
import { parseStrictDate } from '../memory/dates.js';
import { parseDuration } from '../memory/duration.js';
import { assertMemoryId, assertMemoryKey, assertUserId, newMemoryId } from '../memory/ids.js';
import { memoryPath } from '../memory/layout.js';
import { MAX_TAGS, MEMORY_TYPES, type MemoryMeta, type MemoryType } from '../memory/model.js';
import { assertNoSecrets } from '../memory/secrets.js';
import { serializeMemory } from '../memory/serialize.js';
import { commitMessage } from './core/commit-message.js';
import { handEditsBefore } from './core/hand-edits.js';
import type { DepsUsing } from './core/deps.js';
import type { IndexSearcher } from './ports.js';
import type { PurgeIndex } from './core/purge.js';
import { loadDoc, manifestEntries, pathOf } from './core/documents.js';
import { beginWrite, undoOnFailure } from './core/interrupted-write.js';
import { writeLocked } from './write-locked.js';
import { findCandidates } from './reconcile/candidates.js';
import type { Candidate, Decision, Incoming, ReconcileAction } from './reconcile/decision.js';
import { decideWithLlm } from './reconcile/llm-decide.js';
import { outrankedBy } from './reconcile/provenance.js';
import { decideByRules } from './reconcile/rules.js';
import { rewriteMemory } from './core/rewrite.js';
import { ensureIndexed } from './core/ensure-indexed.js';
import { syncIndex } from './core/sync.js';

/** An add writes (under the write lock, so a purge may settle a killed `mem sync`) and searches for the memories it reconciles against. */
type AddDeps = DepsUsing<PurgeIndex & IndexSearcher>;

export interface AddInput {
  text: string;
  user: string;
  type?: MemoryType;
  importance?: number;
  tags?: string[];
  /** The fact slot the memory fills (e.g. residence): a new value for a slot supersedes the old one. */
  key?: string;
  /** Provenance: "system…" outranks "user…" outranks anything else (agent, ingest…, inferred). Default "user". */
  source?: string;
  /** ISO time after which the memory is no longer eligible. */
  expires?: string;
  /** Lifetime such as "7d" or "none" (instead of expires; default per type from the configuration). */
  ttl?: string;
  /** Explicit correction: the id of the memory this one replaces. */
  supersedes?: string;
  /** Skip reconciliation: always write a new memory. */
  force?: boolean;
  /** Store the text even if it looks like it contains a secret (API key, private key, password). */
  allowSecrets?: boolean;
}

export type { ReconcileAction } from './reconcile/decision.js';

export interface AddResult {
  action: ReconcileAction;
  /** The memory written (ADD, SUPERSEDE), rewritten (UPDATE) or already holding the fact (NOOP). */
  id: string;
  path: string;
  user: string;
  type: MemoryType;
  /** Why reconciliation chose the action (rule or LLM answer). */
  reason?: string;
  /** Who decided: an explicit flag, the offline rules or the LLM. */
  decidedBy?: Decision['by'];
  /** SUPERSEDE: the memory this one replaced. */
  supersedes?: string;
}

/** A memory is a fact or a note, not a document: longer texts are refused (a file of memories has MEM_MAX_FILE_MB). */
export const MAX_TEXT_CHARS = 100_000;

/** `now` (the caller's clock) also refuses an expiry that has already passed. */
export async function validateAddInput(input: AddInput, now?: Date): Promise<void> {
  assertUserId(input.user);
  // Zero-width and other invisible format characters alone are no text a person could read.
  if (!input.text || !/[^\s\p{Cf}]/u.test(input.text)) throw new UsageError('the memory text is empty (or only invisible characters)');
  if (input.text.length > MAX_TEXT_CHARS) {
    throw new UsageError(
      `the memory text is ${input.text.length} characters long; at most ${MAX_TEXT_CHARS} are allowed (split it, or write it as a file in the root)`,
    );
  }
  // Every field is stored in the file, and the key and reason reach the commit message too.
  if (!input.allowSecrets) {
    await assertNoSecrets(input.text);
    for (const tag of input.tags ?? []) await assertNoSecrets(tag, 'tags');
    for (const [field, value] of [
      ['user id', input.user],
      ['key', input.key],
      ['source', input.source],
      ['supersedes id', input.supersedes],
    ] as const) {
      if (value !== undefined) await assertNoSecrets(value, field);
    }
  }
  if (input.type !== undefined && !MEMORY_TYPES.includes(input.type)) {
    throw new UsageError(`type must be one of ${MEMORY_TYPES.join(', ')}`);
  }
  if (input.importance !== undefined && !(input.importance >= 0 && input.importance <= 1)) {
    throw new UsageError('importance must be a number from 0 to 1');
  }
  if ((input.tags?.length ?? 0) > MAX_TAGS) throw new UsageError(`at most ${MAX_TAGS} tags (the index holds that many); got ${input.tags!.length}`);
  for (const tag of input.tags ?? []) {
    if (!tag || tag.length > 100 || /[\n\r"\\]/.test(tag)) throw new UsageError(`invalid tag ${JSON.stringify(tag)}`);
  }
  if (input.key !== undefined) assertMemoryKey(input.key);
  if (input.source !== undefined && (!input.source.trim() || input.source.length > 500 || /[\n\r]/.test(input.source))) {
    throw new UsageError(`invalid source ${JSON.stringify(input.source).slice(0, 80)}`);
  }
  if (input.expires !== undefined) {
    const parsed = parseStrictDate(input.expires);
    if ('error' in parsed) throw new UsageError(`expires: ${parsed.error}`);
    if (now && parsed.date.getTime() <= now.getTime()) {
      throw new UsageError(`expires ${parsed.date.toISOString()} is already past: the memory would never be found`);
    }
  }
  if (input.expires !== undefined && input.ttl !== undefined) throw new UsageError('give either expires or ttl, not both');
  if (input.ttl !== undefined) parseDuration(input.ttl, 'ttl');
  if (input.supersedes !== undefined) assertMemoryId(input.supersedes);
}

function expiryOf(deps: AddDeps, input: AddInput, type: MemoryType, now: Date): string | undefined {
  if (input.expires) return (parseStrictDate(input.expires) as { date: Date }).date.toISOString();
  const ttl = input.ttl !== undefined ? parseDuration(input.ttl, 'ttl') : deps.lifecycle.ttl[type];
  return ttl ? new Date(now.getTime() + ttl).toISOString() : undefined;
}

async function decide(deps: AddDeps, input: AddInput, incoming: Incoming, candidates: Candidate[]): Promise<Decision> {
  if (input.supersedes) {
    const target = candidates.find((c) => c.id === input.supersedes);
    if (!target) throw new UsageError(`cannot supersede ${input.supersedes}: no active memory with that id for user ${input.user}`);
    const outranked = outrankedBy(incoming.source, target.source);
    if (outranked) throw new UsageError(`cannot supersede ${target.id}: ${outranked} (use --source to state provenance)`);
    return { action: 'SUPERSEDE', target: target.id, reason: `explicit --supersedes ${target.id}`, by: 'explicit' };
  }
  if (input.force) return { action: 'ADD', reason: 'forced: reconciliation skipped', by: 'explicit' };
  const rules = decideByRules(incoming, candidates, { duplicateThreshold: deps.lifecycle.duplicateThreshold });
  // A model is only asked when there is something to weigh.
  let decision = rules;
  if (deps.llm && candidates.length > 0 && !rules.certain) {
    const answer = await decideWithLlm(deps.llm, incoming, candidates);
    if ('invalid' in answer) decision = { ...rules, reason: `${rules.reason} (LLM answer unusable: ${answer.invalid}; offline rules applied)` };
    // A keyed slot holds one active value: the model may refine or replace it, not add a second.
    else if (answer.action === 'ADD' && rules.action === 'SUPERSEDE') decision = { ...rules, reason: `${rules.reason} (LLM said ADD: ${answer.reason})` };
    else decision = answer;
  }
  if (decision.action === 'UPDATE' || decision.action === 'SUPERSEDE') {
    const target = candidates.find((c) => c.id === decision.target)!;
    const outranked = outrankedBy(incoming.source, target.source);
    if (outranked) return { action: 'NOOP', target: target.id, reason: `kept ${target.id}: ${outranked}`, by: decision.by };
  }
  return decision;
}

export async function addMemory(deps: AddDeps, input: AddInput): Promise<AddResult> {
  await validateAddInput(input, deps.now());
  const type = input.type ?? 'semantic';
  const text = input.text.trim();
  const incoming: Incoming = { text, source: input.source ?? 'user', ...(input.key ? { key: input.key } : {}) };
  return writeLocked(deps, async () => {
    const now = deps.now();
    // A keyed slot holds one active value, and the key's holders come from the manifest: a keyed add syncs what
    // changed first (as list does), so a file of that key written by hand since is superseded, not joined. Costs a
    // no-op sync (~2.7 s at 50,000 files); an add without a key still syncs only its own files.
    await ensureIndexed(deps, input.key ? 'current' : 'first-use');
    if (!input.key) await syncHandWritten(deps, input.user);
    const manifest = await manifestEntries(deps);
    const candidates = await findCandidates(deps, { text, user: input.user, type, ...(input.key ? { key: input.key } : {}) }, manifest, now);
    if (input.supersedes && !candidates.some((c) => c.id === input.supersedes)) {
      // An explicit target may be of another type or not similar in wording.
      const path = pathOf(manifest, input.supersedes, input.user);
      const entry = path ? manifest.get(path) : undefined;
      if (path && entry && entry.user === input.user && entry.status === 'active') {
        candidates.push({ id: entry.memoryId, path, text: '', created: '', similarity: 0, ...(entry.source ? { source: entry.source } : {}) });
      }
    }
    const decision = await decide(deps, input, incoming, candidates);
    const target = candidates.find((c) => c.id === decision.target);
    const base = { user: input.user, type, reason: decision.reason, decidedBy: decision.by };

    if (decision.action === 'NOOP') return { ...base, action: 'NOOP', id: target!.id, path: target!.path };

    // A person's uncommitted edit of the file this add rewrites goes into memdir's commit with it: the message says so.
    const includesUncommitted =
      decision.action === 'UPDATE' || decision.action === 'SUPERSEDE' ? (await handEditsBefore(deps.audit, [target!.path]))([target!.path]) : undefined;

    if (decision.action === 'UPDATE') {
      const tags = [...new Set([...(await loadDoc(deps, target!.path)).meta.tags, ...(input.tags ?? [])])];
      // Refused before writing: a file with more tags than the index holds would be skipped by every sync after.
      if (tags.length > MAX_TAGS) {
        throw new UsageError(
          `this add updates ${target!.path} (id ${target!.id}), and its tags with these would be ${tags.length}, over the ${MAX_TAGS} a memory can hold: nothing written; give fewer tags or remove some from that file`,
        );
      }
      const undo = await beginWrite(deps, 'UPDATE', [target!.path], now);
      let meta!: MemoryMeta;
      await undoOnFailure(deps, [target!.path], undo, async () => {
        meta = await rewriteMemory(
          deps,
          target!.path,
          (m) => ({
            ...m,
            updated: now.toISOString(),
            importance: Math.max(m.importance, input.importance ?? 0),
            tags,
          }),
          `${decision.text ?? text}\n`,
        );
        await indexAndCommit(deps, [target!.path], 'UPDATE', {
          id: meta.id,
          user: input.user,
          type: meta.type,
          decided_by: decision.by,
          reason: decision.reason,
          includes_uncommitted: includesUncommitted,
        });
      });
      return { ...base, type: meta.type, action: 'UPDATE', id: meta.id, path: target!.path };
    }

    const id = newMemoryId(text, now);
    const meta: MemoryMeta = {
      id,
      user: input.user,
      type,
      importance: input.importance ?? 0.5,
      status: 'active',
      created: now.toISOString(),
      updated: now.toISOString(),
      tags: input.tags ?? [],
      source: incoming.source,
      extra: {},
    };
    const expires = expiryOf(deps, input, type, now);
    if (expires) meta.expires = expires;
    if (input.key) meta.key = input.key;
    const supersedes = decision.action === 'SUPERSEDE' ? target!.id : undefined;
    if (supersedes) meta.supersedes = supersedes;
    const path = memoryPath(input.user, type, id);
    const paths = decision.action === 'SUPERSEDE' ? [path, target!.path] : [path];
    const undo = await beginWrite(deps, decision.action, paths, now);
    // The writes are steps too: one refused (a read-only folder) puts back what the others wrote.
    await undoOnFailure(deps, paths, undo, async () => {
      await deps.files.write(path, serializeMemory(meta, text));
      // The old file says what replaced it: a reader of either file sees the correction.
      if (decision.action === 'SUPERSEDE') {
        await rewriteMemory(deps, target!.path, (m) => ({ ...m, status: 'superseded', superseded_by: id, updated: now.toISOString() }));
      }
      await indexAndCommit(deps, paths, decision.action, {
        id,
        user: input.user,
        type,
        supersedes,
        decided_by: decision.by,
        reason: decision.reason,
        includes_uncommitted: includesUncommitted,
      });
    });
    return { ...base, action: decision.action, id, path, ...(supersedes ? { supersedes } : {}) };
  });
}

/**
 * An add without a key syncs only the files of its user's folder written since the manifest's last save (memdir's
 * own writes save it, so these are hand edits): reconciliation then sees a near-duplicate written by hand. The scan
 * of one folder costs ~20-70 ms at 5,000 files, a full no-op sync ~1 s at 10,000.
 */
async function syncHandWritten(deps: AddDeps, user: string): Promise<void> {
  const savedAt = (await deps.manifest.savedAt?.()) ?? null;
  if (savedAt === null) return;
  const { files } = await deps.files.scan({ folders: [user] });
  const newer = files.filter((f) => f.mtimeMs > savedAt).map((f) => f.path);
  if (newer.length > 0) await syncIndex(deps, { only: newer });
}

async function indexAndCommit(deps: AddDeps, paths: string[], action: string, fields: Record<string, string | undefined>) {
  const report = await syncIndex(deps, { only: paths });
  const problem = report.errors.find((e) => paths.includes(e.path));
  // The file this add wrote does not index (e.g. over the size limit): not a typing error, exit 1.
  if (problem) throw new InvalidMemoryError(problem.path, problem.line, problem.message);
  await deps.audit.commit(paths, await commitMessage(action, fields));
}
