// Use case: what is in the memory root and the index, and where they disagree.
import { hasLapsed } from '../memory/lifecycle.js';
import type { MemoryDeps } from './core/deps.js';

export interface StatusReport {
  root: string;
  index: string;
  embedding: string;
  files: number;
  chunks: number;
  indexRows: number;
  users: Record<string, { memories: number; byType: Record<string, number>; byStatus: Record<string, number> }>;
  drift: { unindexed: string[]; changed: string[]; deleted: string[]; rowsMismatch: boolean; inSync: boolean };
}

function bump(obj: Record<string, number>, key: string) {
  obj[key] = (obj[key] ?? 0) + 1;
}

export async function memoryStatus(deps: MemoryDeps): Promise<StatusReport> {
  await deps.index.open(deps.embedder.identity);
  const manifest = (await deps.manifest.load()) ?? new Map();
  const { files } = await deps.files.scan();
  const present = new Set(files.map((f) => f.path));
  const unindexed: string[] = [];
  const changed: string[] = [];
  for (const f of files) {
    const entry = manifest.get(f.path);
    if (!entry) unindexed.push(f.path);
    else if (entry.size !== f.size || entry.mtimeMs !== f.mtimeMs) changed.push(f.path);
  }
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
      rowsMismatch,
      inSync: !rowsMismatch && unindexed.length + changed.length + deleted.length === 0,
    },
  };
}
