// Use case: one memory with its lifecycle around it: the supersede chain, its consolidation links, and its git history.
import { idList, type MemoryStatus } from '../memory/model.js';
import type { DepsUsing } from './core/deps.js';
import type { SyncIndex } from './core/sync.js';
import { loadDoc, manifestEntries, pathOf, toRecord, withIndexedStatus, type MemoryRecord } from './core/documents.js';
import { ensureIndexed } from './core/ensure-indexed.js';
import { getMemory, type GetInput } from './get.js';
import type { AuditEntry, ManifestEntry } from './ports.js';

/** Show reads files and the manifest, syncing a root first used. */
type ShowDeps = DepsUsing<SyncIndex>;

export interface ChainLink {
  id: string;
  status: MemoryStatus | 'missing';
  created?: string;
  /** First line of the memory, for a glance. */
  summary?: string;
}

export interface ShowResult {
  memory: MemoryRecord;
  /**
   * The correction chain, oldest first; includes the memory itself. Links come from either file: an
   * older memory's `superseded_by`, or a newer one's `supersedes` (a hand-written correction).
   */
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

async function link(deps: ShowDeps, entries: Entries, id: string, user: string): Promise<{ link: ChainLink; record?: MemoryRecord }> {
  // The user's own memory with that id first (ids are unique per user, not across users).
  const path = pathOf(entries, id, user) ?? pathOf(entries, id);
  const record = path
    ? await loadDoc(deps, path).then(
        (doc) => withIndexedStatus(toRecord(doc), entries.get(path)),
        () => undefined,
      )
    : undefined;
  return record ? { link: linkOf(record), record } : { link: { id, status: 'missing' } };
}

async function walk(deps: ShowDeps, entries: Entries, start: MemoryRecord, next: (r: MemoryRecord) => string | undefined, user: string): Promise<ChainLink[]> {
  const links: ChainLink[] = [];
  const seen = new Set([start.id]);
  let id = next(start);
  while (id && !seen.has(id) && links.length < MAX_CHAIN) {
    seen.add(id);
    const { link: l, record } = await link(deps, entries, id, user);
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

/** The memory of the same user that names this one in its `supersedes:` (first by path), if any. */
function correctorOf(entries: Entries, r: MemoryRecord): string | undefined {
  const paths = [...entries.keys()].sort();
  const path = paths.find((p) => {
    const e = entries.get(p)!;
    return e.user === r.user && e.memoryId !== r.id && idList(e.supersedes).includes(r.id);
  });
  return path === undefined ? undefined : entries.get(path)!.memoryId;
}

export async function showMemory(deps: ShowDeps, input: GetInput): Promise<ShowResult> {
  const memory = await getMemory(deps, input);
  await ensureIndexed(deps);
  const entries = await manifestEntries(deps);
  // A memory that corrects several follows the first it names; a hand-written correction names only the older one.
  const older = await walk(deps, entries, memory, (r) => idList(r.supersedes)[0], memory.user);
  const newer = await walk(deps, entries, memory, (r) => r.superseded_by ?? correctorOf(entries, r), memory.user);
  const sources = [];
  for (const id of memory.sources ?? []) {
    const { link: l, record } = await link(deps, entries, id, memory.user);
    sources.push(record && record.user !== memory.user ? { id, status: 'missing' as const } : l);
  }
  return { memory, chain: [...older.reverse(), linkOf(memory), ...newer], sources, history: await deps.audit.history(memory.path) };
}
