// Use case: what is in the memory root and the index, and where they disagree.
import { hasLapsed } from '../memory/lifecycle.js';
import type { DepsUsing } from './core/deps.js';
import { recordsOf } from './core/file-records.js';
import { tooLargeError } from './core/sync.js';
import type { FileStat, IndexOpener, IndexInventory } from './ports.js';

// Status reads no file in sync: only those that differ from the manifest, and at most this many (more is a reindex's job).
const MAX_CHECKED = 200;

/** Why the sync would refuse this file, or null when it would index it. */
async function refusal(deps: DepsUsing<IndexOpener & IndexInventory>, stat: FileStat): Promise<{ line: number; message: string } | null> {
  if (stat.size > deps.maxFileBytes) return tooLargeError(stat, deps.maxFileBytes);
  const bytes = await deps.files.read(stat.path).catch((err: Error) => err);
  if (bytes instanceof Error) return { line: 0, message: `cannot read: ${bytes.message}` };
  const parsed = recordsOf(deps, stat, bytes);
  return 'message' in parsed ? { line: parsed.line, message: parsed.message } : null;
}

export interface StatusReport {
  root: string;
  index: string;
  embedding: string;
  files: number;
  chunks: number;
  indexRows: number;
  users: Record<string, { memories: number; byType: Record<string, number>; byStatus: Record<string, number> }>;
  drift: {
    unindexed: string[];
    changed: string[];
    deleted: string[];
    /** Files the sync cannot index (bad front matter, too large…): no reindex changes them, so they do not count against inSync. */
    invalid: { path: string; line: number; message: string }[];
    /**
     * Files changed since the last sync beyond the first MAX_CHECKED (by path), not read: unindexed, changed or
     * invalid, status does not say which. They count against inSync.
     */
    unchecked: string[];
    rowsMismatch: boolean;
    inSync: boolean;
  };
}

function bump(obj: Record<string, number>, key: string) {
  obj[key] = (obj[key] ?? 0) + 1;
}

export async function memoryStatus(deps: DepsUsing<IndexOpener & IndexInventory>): Promise<StatusReport> {
  await deps.index.open(deps.embedder.identity);
  const manifest = (await deps.manifest.load()) ?? new Map();
  const { files } = await deps.files.scan();
  const present = new Set(files.map((f) => f.path));
  const unindexed: string[] = [];
  const changed: string[] = [];
  const invalid: StatusReport['drift']['invalid'] = [];
  const drifting = files.filter((f) => {
    const entry = manifest.get(f.path);
    return !entry || entry.size !== f.size || entry.mtimeMs !== f.mtimeMs;
  });
  // The first MAX_CHECKED are read, not none: a root with more invalid files than that (which no reindex changes) would
  // otherwise show them all as unindexed after every reindex, and never which file or line to fix.
  const byPath = drifting.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const f of byPath.slice(0, MAX_CHECKED)) {
    const refused = await refusal(deps, f);
    if (refused) invalid.push({ path: f.path, ...refused });
    else (manifest.has(f.path) ? changed : unindexed).push(f.path);
  }
  const unchecked = byPath.slice(MAX_CHECKED).map((f) => f.path);
  const deleted = [...manifest.keys()].filter((p) => !present.has(p));
  const users: StatusReport['users'] = {};
  let chunks = 0;
  // The manifest keeps each file's expiry (ms) since entries carry lifecycle links, so the count agrees with
  // search and list (hasLapsed) without reading a file; a lapsed active memory counts as expired.
  const now = deps.now().getTime();
  for (const entry of manifest.values()) {
    chunks += entry.chunkCount;
    const u = (users[entry.user] ??= { memories: 0, byType: {}, byStatus: {} });
    u.memories++;
    bump(u.byType, entry.type);
    bump(u.byStatus, entry.status === 'active' && hasLapsed(entry.expires, now) ? 'expired' : entry.status);
  }
  const indexRows = await deps.index.count({ users: 'all' });
  const rowsMismatch = indexRows !== chunks;
  return {
    root: deps.files.root,
    index: deps.index.location,
    embedding: `${deps.embedder.identity.name} (${deps.embedder.identity.dimension} dims)`,
    files: files.length,
    chunks,
    indexRows,
    users,
    drift: {
      unindexed,
      changed,
      deleted,
      invalid,
      unchecked,
      rowsMismatch,
      inSync: !rowsMismatch && unindexed.length + changed.length + deleted.length + unchecked.length === 0,
    },
  };
}
