// Use case: compare the files, the manifest, the index and git row by row, and check the rules files must keep
// (one file per id and user, one active memory per key); report where they disagree and, with fix, repair it.
import { ModelMismatchError, errorMessage } from '../errors.js';
import { sha256 } from '../memory/hash.js';
import { decodeMemoryText } from '../memory/decode.js';
import { frontMatterLine } from '../memory/parse.js';
import { commitMessage } from './core/commit-message.js';
import type { DepsUsing } from './core/deps.js';
import { duplicateIdErrors, duplicateKeys, rivalCorrections, type IdEntry } from './core/duplicates.js';
import { settleInterruptedWrite } from './core/interrupted-write.js';
import { resolveLinks, type LinkProblemKind } from './core/links.js';
import type { FileStat, ManifestEntry, IndexInventory } from './ports.js';
import { entryOf, recordsOf } from './core/file-records.js';
import { syncIndex, tooLargeError, type SyncIndex } from './core/sync.js';

/** Doctor checks what the index holds against the files, and repairs by syncing. */
type DoctorDeps = DepsUsing<SyncIndex & IndexInventory>;

export type ProblemKind =
  /** The index was built with another embedding model or layout. */
  | 'model-mismatch'
  /** A file that cannot be indexed (bad front matter, binary, too large, unreadable, a symlink loop). */
  | 'invalid-file'
  /** A file the manifest does not list (never indexed). */
  | 'unindexed'
  /** A file whose content differs from what the manifest says was indexed. */
  | 'changed'
  /** A manifest entry whose file is gone. */
  | 'deleted'
  /** Chunks of a file that the index lacks. */
  | 'missing-rows'
  /** Rows of a file that no longer match its content (an older version). */
  | 'stale-rows'
  /** Rows of a path that has no file. */
  | 'orphaned-rows'
  /** A write (mem add…) was killed before it finished: its files may be on disk but not indexed or committed. */
  | 'interrupted-write'
  /** A memory file that differs from the last git commit: untracked, changed, staged or deleted (fix commits it). */
  | 'uncommitted'
  /** A memory file git ignores: indexed, but outside the audit trail (may be deliberate, so never force-added). */
  | 'ignored'
  /** A memory file a git merge, rebase or cherry-pick left unmerged (`mem resolve` settles it by memdir's rules). */
  | 'unmerged'
  /** Two files of one user carry the same id: lookups by that id cannot tell them apart. */
  | 'duplicate-id'
  /** Two active memories of one user fill the same key: the slot should hold one value. */
  | 'duplicate-key'
  /** Two active memories of one user supersede the same memory: both stay active (a correction hides what it names, not its siblings). */
  | 'rival-corrections'
  /** A front matter `updated:` later than the file's last write (in the future): ranked as of the file's last write instead (needs a person). */
  | 'future-date'
  /** The index rows carry another status than the memory's links give it (a sync was interrupted). */
  | 'stale-status'
  /** A lifecycle link that names nothing, another user's memory, the memory itself, or closes a cycle; or a superseded memory nothing replaces. */
  | LinkProblemKind;

export interface DoctorProblem {
  kind: ProblemKind;
  path?: string;
  line?: number;
  detail: string;
  /** Whether `--fix` can repair it (an invalid file needs a person). */
  fixable: boolean;
}

export interface DoctorReport {
  /** True when files, manifest and index agree. */
  ok: boolean;
  files: number;
  manifestEntries: number;
  indexRows: number;
  /** What is wrong now (after repairs, with fix). */
  problems: DoctorProblem[];
  /** What was wrong before and was repaired (with fix). */
  repaired: DoctorProblem[];
}

export interface DoctorOptions {
  fix?: boolean;
}

type Diagnosis = Omit<DoctorReport, 'repaired'>;

// Clocks of machines that share a root disagree a little; only a date clearly ahead is reported.
const FUTURE_TOLERANCE_MS = 5 * 60_000;

/** The file line of a front matter `updated:` key (1 when there is none). */
function updatedLineOf(bytes: Uint8Array): number {
  const head = new TextDecoder().decode(bytes.subarray(0, 64 * 1024)).split('\n');
  const idx = head.findIndex((l) => /^["']?updated["']?\s*:/.test(l));
  return idx === -1 ? 1 : idx + 1;
}

const keyOf = (p: DoctorProblem) => `${p.kind}\u0000${p.path ?? ''}`;

/** Holds the write lock throughout, so a sync running elsewhere is never mistaken for damage. */
export async function doctor(deps: DoctorDeps, options: DoctorOptions = {}): Promise<DoctorReport> {
  return deps.lock.run(async () => {
    const before = await diagnose(deps);
    if (!options.fix || !before.problems.some((p) => p.fixable)) return { ...before, repaired: [] };
    await repair(deps, before.problems);
    const after = await diagnose(deps);
    const remaining = new Set(after.problems.map(keyOf));
    return { ...after, repaired: before.problems.filter((p) => !remaining.has(keyOf(p))) };
  });
}

async function diagnose(deps: DoctorDeps): Promise<Diagnosis> {
  const manifest = (await deps.manifest.load()) ?? new Map<string, ManifestEntry>();
  const { files, problems: scanProblems } = await deps.files.scan();
  try {
    await deps.index.open(deps.embedder.identity);
  } catch (err) {
    if (!(err instanceof ModelMismatchError)) throw err;
    const problem: DoctorProblem = { kind: 'model-mismatch', detail: err.message, fixable: true };
    return { ok: false, files: files.length, manifestEntries: manifest.size, indexRows: 0, problems: [problem] };
  }
  const problems: DoctorProblem[] = scanProblems.map((p) => ({ kind: 'invalid-file', path: p.path, detail: p.message, fixable: false }));
  // The chunk ids each path must have in the index.
  const expected = new Map<string, Set<string>>();
  const invalid = new Set<string>();
  // What the files say now (an invalid file: what its last good version said), for the lifecycle links.
  const current = new Map<string, ManifestEntry>();
  for (const stat of files) {
    const entry = manifest.get(stat.path);
    const seen = await inspect(deps, stat);
    if ('message' in seen) {
      problems.push({ kind: 'invalid-file', path: stat.path, line: seen.line, detail: seen.message, fixable: false });
      invalid.add(stat.path);
      // Sync keeps an invalid file's last good rows (nothing is lost): those are what the index should
      // hold — except for a file in the wrong user's scope, which keeps none.
      const kept = !seen.misplaced && entry ? (await deps.manifest.chunksOf([[stat.path, entry]])).get(stat.path) : undefined;
      expected.set(stat.path, new Set(kept?.map((c) => c.id) ?? []));
      if (entry && !seen.misplaced) current.set(stat.path, entry);
      continue;
    }
    expected.set(stat.path, seen.ids);
    current.set(stat.path, seen.entry);
    const updated = Date.parse(seen.updated);
    // Later than the file's last write: written by hand, and capped for ranking (see toChunkRecords).
    if (updated > stat.mtimeMs + FUTURE_TOLERANCE_MS) {
      problems.push({
        kind: 'future-date',
        path: stat.path,
        line: seen.updatedLine,
        detail: `updated ${seen.updated} is in the future: ranked as of the file's last write (${new Date(stat.mtimeMs).toISOString()}); correct the date`,
        fixable: false,
      });
    }
    if (!entry) problems.push({ kind: 'unindexed', path: stat.path, detail: 'not in the manifest: never indexed', fixable: true });
    else if (entry.sha !== seen.sha) problems.push({ kind: 'changed', path: stat.path, detail: 'changed since it was indexed', fixable: true });
  }
  const links = resolveLinks(current);
  for (const p of links.problems) {
    problems.push({ kind: p.kind, path: p.path, line: await keyLine(deps, p.path, p.key), detail: p.message, fixable: false });
  }
  for (const [path, status] of links.statuses) {
    const entry = manifest.get(path);
    if (entry && entry.sha === current.get(path)!.sha && entry.status !== status) {
      problems.push({ kind: 'stale-status', path, detail: `the index says ${entry.status}, its links say ${status}`, fixable: true });
    }
  }
  for (const path of manifest.keys()) {
    if (!expected.has(path)) problems.push({ kind: 'deleted', path, detail: 'in the manifest, but the file is gone', fixable: true });
  }

  const rows = await deps.index.listChunks();
  const indexed = new Map<string, Set<string>>();
  for (const r of rows) {
    if (!indexed.has(r.path)) indexed.set(r.path, new Set());
    indexed.get(r.path)!.add(r.chunkId);
  }
  for (const [path, ids] of expected) {
    const have = indexed.get(path) ?? new Set<string>();
    const missing = [...ids].filter((id) => !have.has(id)).length;
    const stale = [...have].filter((id) => !ids.has(id)).length;
    const fixable = !invalid.has(path);
    if (missing > 0) problems.push({ kind: 'missing-rows', path, detail: `${missing} of ${ids.size} chunks are not in the index`, fixable });
    if (stale > 0) problems.push({ kind: 'stale-rows', path, detail: `${stale} rows do not match the file's content`, fixable });
  }
  for (const [path, ids] of indexed) {
    if (!expected.has(path)) problems.push({ kind: 'orphaned-rows', path, detail: `${ids.size} rows of a file that is not there`, fixable: true });
  }
  problems.push(...(await ruleProblems(deps, current, links.statuses)), ...(await gitProblems(deps, invalid)));
  return { ok: problems.length === 0, files: files.length, manifestEntries: manifest.size, indexRows: rows.length, problems };
}

/**
 * Ids used by two files of one user, keys filled by two active memories of one user: by what the files say now,
 * with the status their lifecycle links give them (a memory a hand-written correction names no longer fills its key).
 */
async function ruleProblems(deps: DoctorDeps, current: Map<string, ManifestEntry>, statuses: Map<string, ManifestEntry['status']>): Promise<DoctorProblem[]> {
  const entries = new Map<string, IdEntry>(
    [...current].map(([path, e]) => [
      path,
      {
        memoryId: e.memoryId,
        user: e.user,
        status: statuses.get(path) ?? e.status,
        ...(e.key ? { key: e.key } : {}),
        ...(e.expires !== undefined ? { expires: e.expires } : {}),
        ...(e.supersedes !== undefined ? { supersedes: e.supersedes } : {}),
      },
    ]),
  );
  const problems: DoctorProblem[] = (await duplicateIdErrors(deps, entries)).map((e) => ({
    kind: 'duplicate-id',
    path: e.path,
    line: e.line,
    detail: e.message,
    fixable: false,
  }));
  for (const group of duplicateKeys(entries, deps.now().getTime())) {
    for (const path of group.paths) {
      const others = group.paths.filter((p) => p !== path).join(', ');
      problems.push({
        kind: 'duplicate-key',
        path,
        detail: `user ${group.user} has ${group.paths.length} active memories with key ${JSON.stringify(group.key)}: also ${others} (supersede or forget all but one)`,
        fixable: false,
      });
    }
  }
  for (const group of rivalCorrections(entries, deps.now().getTime())) {
    // Which correction is right needs a person; the example keeps the first by path and names the others in it.
    const [keep, ...rest] = group.members;
    const example = `in ${keep!.id}: supersedes: [${[group.target, ...rest.map((m) => m.id)].join(', ')}]`;
    for (const { path } of group.members) {
      const others = group.members.filter((m) => m.path !== path).map((m) => `${m.id} (${m.path})`);
      problems.push({
        kind: 'rival-corrections',
        path,
        line: await keyLine(deps, path, 'supersedes'),
        detail: `user ${group.user} has ${group.members.length} active corrections of ${group.target}: also ${others.join(', ')}; all stay active. Keep one and name the others in its supersedes (e.g. ${example}), or forget the wrong ones`,
        fixable: false,
      });
    }
  }
  return problems;
}

/** A write left unfinished by a killed process, and memory files git does not have as they are. */
async function gitProblems(deps: DoctorDeps, invalid: Set<string>): Promise<DoctorProblem[]> {
  const problems: DoctorProblem[] = [];
  const pending = await deps.journal.pending();
  if (pending) {
    problems.push({
      kind: 'interrupted-write',
      detail: `${pending.action} started ${pending.started} was killed before it finished (${Object.keys(pending.before).join(', ')}); fix rolls it back`,
      fixable: true,
    });
  }
  const unmerged = new Set((await deps.audit.unmerged?.()) ?? []);
  for (const path of unmerged) {
    problems.push({
      kind: 'unmerged',
      path,
      detail: invalid.has(path)
        ? 'git left it unmerged, with conflict markers memdir cannot settle: keep the right text, delete the marker lines, then git add it'
        : "git left it unmerged (changed on one side, deleted or changed on the other): `mem resolve` settles it by memdir's rules, then finish the merge",
      fixable: false,
    });
  }
  for (const path of await deps.audit.uncommitted()) {
    if (unmerged.has(path)) continue;
    // An invalid file may be a merge conflict: `git add` would mark it resolved with its markers in.
    problems.push(
      invalid.has(path)
        ? { kind: 'uncommitted', path, detail: 'not committed to git as it is, and invalid (see above): fix the file, then commit it', fixable: false }
        : { kind: 'uncommitted', path, detail: 'not committed to git as it is (untracked, changed, staged or deleted); fix commits it', fixable: true },
    );
  }
  // A private file may be ignored on purpose: a person decides, so `--fix` never `git add -f`s it.
  for (const path of await deps.audit.ignored()) {
    problems.push({
      kind: 'ignored',
      path,
      detail: `ignored by git: indexed and searchable, but never committed, so neither git diff nor git log shows its changes; \`git check-ignore -v ${path}\` names the rule: remove it (or add a !${path} exception), or move the file out of the memory root if it should stay private`,
      fixable: false,
    });
  }
  return problems;
}

/** The line of a front matter key in a file, for a link problem (1 when it cannot be read). */
async function keyLine(deps: DoctorDeps, path: string, key: string): Promise<number> {
  try {
    return frontMatterLine(decodeMemoryText(await deps.files.read(path), path), key);
  } catch {
    return 1;
  }
}

type Inspection =
  { sha: string; ids: Set<string>; entry: ManifestEntry; updated: string; updatedLine: number } | { line: number; message: string; misplaced?: true };

/** The content hash, chunk ids and manifest entry a file must have, or why it cannot be indexed. */
async function inspect(deps: DoctorDeps, stat: FileStat): Promise<Inspection> {
  if (stat.size > deps.maxFileBytes) return tooLargeError(stat, deps.maxFileBytes);
  let bytes: Uint8Array;
  try {
    bytes = await deps.files.read(stat.path);
  } catch (err) {
    return { line: 0, message: `cannot read: ${errorMessage(err)}` };
  }
  const parsed = recordsOf(deps, stat, bytes);
  if ('message' in parsed) return parsed;
  const sha = sha256(bytes);
  return {
    sha,
    ids: new Set(parsed.records.map((r) => r.chunkId)),
    entry: entryOf(stat, sha, parsed.meta, parsed.records),
    updated: parsed.meta.updated,
    updatedLine: updatedLineOf(bytes),
  };
}

/**
 * A model mismatch needs a rebuild; an interrupted write is rolled back (or accepted if it was committed);
 * anything else, a sync of the affected paths that trusts no manifest entry of theirs, then a commit of the
 * memory files git does not have as they are.
 */
async function repair(deps: DoctorDeps, problems: DoctorProblem[]): Promise<void> {
  if (problems.some((p) => p.kind === 'model-mismatch')) {
    await syncIndex(deps, { rebuild: true });
    return;
  }
  if (problems.some((p) => p.kind === 'interrupted-write')) await settleInterruptedWrite(deps);
  await resync(deps, [...new Set(problems.filter((p) => p.fixable && p.kind !== 'uncommitted' && p.path !== undefined).map((p) => p.path!))]);
  const commit = new Set(problems.filter((p) => p.kind === 'uncommitted' && p.fixable).map((p) => p.path));
  if (commit.size > 0) {
    // Asked again: a rolled-back write's files are gone and need no commit; one that needs a person is never committed.
    const left = (await deps.audit.uncommitted()).filter((p) => commit.has(p));
    await deps.audit.commit(left, await commitMessage('COMMIT-FILES', { count: String(left.length) }, left.map((p) => `file: ${p}`).join('\n')));
  }
}

async function resync(deps: DoctorDeps, paths: string[]): Promise<void> {
  if (paths.length === 0) return;
  // An entry may vouch for rows the index lacks or not list rows it has: marked pending, the sync re-reads
  // the file, rewrites its rows and removes the others by path.
  await deps.manifest.markPending(paths);
  await syncIndex(deps, { only: paths });
}
