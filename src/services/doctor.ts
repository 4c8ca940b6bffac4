// Use case: compare the files, the manifest and the index row by row; report where they disagree and, with fix, repair it.
import { ModelMismatchError, errorMessage } from '../errors.js';
import { sha256 } from '../memory/hash.js';
import type { FileStat, ManifestEntry } from './ports.js';
import { recordsOf, syncIndex, tooLargeError, type SyncDeps } from './core/sync.js';

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
  | 'orphaned-rows';

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

const keyOf = (p: DoctorProblem) => `${p.kind}\u0000${p.path ?? ''}`;

/** Holds the write lock throughout, so a sync running elsewhere is never mistaken for damage. */
export async function doctor(deps: SyncDeps, options: DoctorOptions = {}): Promise<DoctorReport> {
  return deps.lock.run(async () => {
    const before = await diagnose(deps);
    if (!options.fix || !before.problems.some((p) => p.fixable)) return { ...before, repaired: [] };
    await repair(deps, before.problems);
    const after = await diagnose(deps);
    const remaining = new Set(after.problems.map(keyOf));
    return { ...after, repaired: before.problems.filter((p) => !remaining.has(keyOf(p))) };
  });
}

async function diagnose(deps: SyncDeps): Promise<Diagnosis> {
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
  for (const stat of files) {
    const entry = manifest.get(stat.path);
    const seen = await inspect(deps, stat);
    if ('message' in seen) {
      problems.push({ kind: 'invalid-file', path: stat.path, line: seen.line, detail: seen.message, fixable: false });
      invalid.add(stat.path);
      // Sync keeps an invalid file's last good rows (nothing is lost): those are what the index should hold.
      expected.set(stat.path, new Set(entry?.chunks.map((c) => c.id) ?? []));
      continue;
    }
    expected.set(stat.path, seen.ids);
    if (!entry) problems.push({ kind: 'unindexed', path: stat.path, detail: 'not in the manifest: never indexed', fixable: true });
    else if (entry.sha !== seen.sha) problems.push({ kind: 'changed', path: stat.path, detail: 'changed since it was indexed', fixable: true });
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
  return { ok: problems.length === 0, files: files.length, manifestEntries: manifest.size, indexRows: rows.length, problems };
}

/** The content hash and chunk ids a file must have, or why it cannot be indexed. */
async function inspect(deps: SyncDeps, stat: FileStat): Promise<{ sha: string; ids: Set<string> } | { line: number; message: string }> {
  if (stat.size > deps.maxFileBytes) return tooLargeError(stat, deps.maxFileBytes);
  let bytes: Uint8Array;
  try {
    bytes = await deps.files.read(stat.path);
  } catch (err) {
    return { line: 0, message: `cannot read: ${errorMessage(err)}` };
  }
  const parsed = recordsOf(deps, stat, bytes);
  if ('message' in parsed) return parsed;
  return { sha: sha256(bytes), ids: new Set(parsed.records.map((r) => r.chunkId)) };
}

/** A model mismatch needs a rebuild; anything else, a sync of the affected paths that trusts no manifest entry of theirs. */
async function repair(deps: SyncDeps, problems: DoctorProblem[]): Promise<void> {
  if (problems.some((p) => p.kind === 'model-mismatch')) {
    await syncIndex(deps, { rebuild: true });
    return;
  }
  const paths = [...new Set(problems.filter((p) => p.fixable && p.path !== undefined).map((p) => p.path!))];
  const manifest = await deps.manifest.load();
  if (manifest) {
    // An entry may vouch for rows the index lacks: without it, the sync re-reads the file and rewrites its rows.
    for (const path of paths) manifest.delete(path);
    await deps.manifest.save(manifest);
  }
  await syncIndex(deps, { only: paths });
}
