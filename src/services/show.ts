// Use case: one memory with its lifecycle around it: the supersede chain, its consolidation links, and its git history.
import type { MemoryStatus } from '../memory/model.js';
import type { MemoryDeps } from './core/deps.js';
import { loadDoc, manifestEntries, pathOf, toRecord, type MemoryRecord } from './core/documents.js';
import { ensureIndexed } from './core/ensure-indexed.js';
import { getMemory, type GetInput } from './get.js';
import type { AuditEntry, ManifestEntry } from './ports.js';

export interface ChainLink {
  id: string;
  status: MemoryStatus | 'missing';
  created?: string;
  /** First line of the memory, for a glance. */
  summary?: string;
}

export interface ShowResult {
  memory: MemoryRecord;
  /** The correction chain, oldest first; includes the memory itself. */
  chain: ChainLink[];
  /** Memories this one summarises (consolidation). */
  sources: ChainLink[];
  history: AuditEntry[];
}

// A hand-edited cycle (a supersedes b supersedes a) must not loop forever.
const MAX_CHAIN = 100;

const linkOf = (r: MemoryRecord): ChainLink => ({ id: r.id, status: r.status, created: r.created, summary: r.content.split('\n')[0]!.slice(0, 120) });

/** The manifest is read once per show: every link is looked up in it. */
type Entries = Map<string, ManifestEntry>;

async function link(deps: MemoryDeps, entries: Entries, id: string): Promise<{ link: ChainLink; record?: MemoryRecord }> {
  const path = pathOf(entries, id);
  const record = path ? await loadDoc(deps, path).then(toRecord, () => undefined) : undefined;
  return record ? { link: linkOf(record), record } : { link: { id, status: 'missing' } };
}

async function walk(
  deps: MemoryDeps, entries: Entries, start: MemoryRecord, next: (r: MemoryRecord) => string | undefined, user: string,
): Promise<ChainLink[]> {
  const links: ChainLink[] = [];
  const seen = new Set([start.id]);
  let id = next(start);
  while (id && !seen.has(id) && links.length < MAX_CHAIN) {
    seen.add(id);
    const { link: l, record } = await link(deps, entries, id);
    // Links never cross users: a hand-written id of another user's memory shows as missing.
    if (record && record.user !== user) {
      links.push({ id, status: 'missing' });
      break;
    }
    links.push(l);
    id = record ? next(record) : undefined;
  }
  return links;
}

export async function showMemory(deps: MemoryDeps, input: GetInput): Promise<ShowResult> {
  const memory = await getMemory(deps, input);
  await ensureIndexed(deps);
  const entries = await manifestEntries(deps);
  const older = await walk(deps, entries, memory, (r) => r.supersedes, memory.user);
  const newer = await walk(deps, entries, memory, (r) => r.superseded_by, memory.user);
  const sources = [];
  for (const id of memory.sources ?? []) {
    const { link: l, record } = await link(deps, entries, id);
    sources.push(record && record.user !== memory.user ? { id, status: 'missing' as const } : l);
  }
  return { memory, chain: [...older.reverse(), linkOf(memory), ...newer], sources, history: await deps.audit.history(memory.path) };
}
