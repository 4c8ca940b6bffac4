// Lifecycle links resolved from the files alone: which memories a correction (`supersedes:`) or a
// summary (`sources:`) takes out of search, and which links are broken. Pure: works on manifest entries.
import { idList, type MemoryStatus } from '../../memory/model.js';
import type { ManifestEntry } from '../ports.js';

export type LinkProblemKind = 'dangling-link' | 'cross-user-link' | 'self-link' | 'link-cycle' | 'no-successor';

/** The front matter keys that link memories (and `status`, for a superseded memory nothing replaces). */
export type LinkKey = 'supersedes' | 'sources' | 'superseded_by' | 'consolidated_into' | 'status';

export interface LinkProblem {
  kind: LinkProblemKind;
  /** The file whose front matter holds the link. */
  path: string;
  key: LinkKey;
  /** The id the link names, when it names one. */
  target?: string;
  /** What is wrong, what memdir does about it, and how to fix it. */
  message: string;
}

export interface ResolvedLinks {
  /** The effective status of every path: what its index rows must carry. */
  statuses: Map<string, MemoryStatus>;
  problems: LinkProblem[];
}

/** The status the file itself says (the manifest's `status` may be overridden by a link). */
export const fileStatusOf = (e: ManifestEntry): MemoryStatus => e.fileStatus ?? e.status;

/** The manifest entry of a file whose effective status is `status`: the file's own is kept beside it when they differ. */
export function withStatus(entry: ManifestEntry, status: MemoryStatus): ManifestEntry {
  const { fileStatus: _old, ...rest } = entry;
  const own = fileStatusOf(entry);
  return own === status ? { ...rest, status } : { ...rest, status, fileStatus: own };
}

const scoped = (user: string, id: string) => `${user}\u0000${id}`;

/** What the links change: the paths whose effective status is not the one their entry carries, and the problems. */
export interface LinkChanges {
  /** Each path whose index rows must be rewritten, with the status they must carry. */
  restatus: Map<string, MemoryStatus>;
  problems: LinkProblem[];
}

/**
 * The effective status of every path (see linkChanges): the one its entry carries unless its links say otherwise.
 * For a caller that wants them all (doctor); a sync wants only what changes, at the cost of what links.
 */
export function resolveLinks(entries: Map<string, ManifestEntry>): ResolvedLinks {
  const { restatus, problems } = linkChanges(entries);
  const statuses = new Map<string, MemoryStatus>();
  for (const [path, e] of entries) statuses.set(path, restatus.get(path) ?? e.status);
  return { statuses, problems };
}

/**
 * A memory the file says is `active` becomes `superseded` when another memory of the same user names
 * it in `supersedes:`, and `consolidated` when a summary of the same user names it in `sources:` —
 * unless that naming memory is itself `status: expired` (an expired correction lapses; a superseded
 * or consolidated one still stands, so chains resolve). Links to nothing, to another user's memory,
 * to the memory itself, or around a cycle are ignored and reported. Depends on the entries alone (no clock: expiry
 * by date is applied where rows are read), so the same entries always give the same answer.
 */
export function linkChanges(entries: Map<string, ManifestEntry>): LinkChanges {
  // Every sync runs this over all entries (50,000 at scale): one pass of property reads that
  // allocates nothing for a memory without links and without a status of its own to check, the usual one. The rest
  // costs what links: only the ids links name are looked up.
  const linking: string[] = [];
  const unreplaced: string[] = [];
  const overridden: string[] = [];
  const namedIds = new Set<string>();
  // forEach, not for-of: no [path, entry] pair per entry; run once per sync (cold code), the pass takes about half the CPU.
  entries.forEach((e, path) => {
    const own = fileStatusOf(e);
    // A status a link gave before: it goes back to the file's own unless a link still gives it.
    if (own !== e.status) overridden.push(path);
    if (own === 'superseded' || own === 'consolidated') unreplaced.push(path);
    if (e.supersedes === undefined && e.sources === undefined && !e.supersededBy && !e.consolidatedInto) return;
    linking.push(path);
    for (const id of idList(e.supersedes)) namedIds.add(id);
    for (const id of e.sources ?? []) namedIds.add(id);
    if (e.supersededBy) namedIds.add(e.supersededBy);
    if (e.consolidatedInto) namedIds.add(e.consolidatedInto);
  });
  const problems: LinkProblem[] = [];
  const restatus = new Map<string, MemoryStatus>();
  if (linking.length === 0 && unreplaced.length === 0 && overridden.length === 0) return { restatus, problems };

  // The paths of each named id by user (a second pass, only when something links), and the ids known for any user.
  const byUser = new Map<string, Map<string, string[]>>();
  const ids = new Set<string>();
  if (namedIds.size > 0) {
    entries.forEach((e, path) => {
      if (!namedIds.has(e.memoryId)) return;
      let byId = byUser.get(e.user);
      if (!byId) byUser.set(e.user, (byId = new Map()));
      const paths = byId.get(e.memoryId);
      if (paths === undefined) byId.set(e.memoryId, [path]);
      else paths.push(path);
      ids.add(e.memoryId);
    });
  }

  /** The paths a link of `path` names, or undefined (and a problem) when it names none it may. */
  const resolve = (path: string, e: ManifestEntry, key: LinkKey, id: string): string[] | undefined => {
    if (id === e.memoryId) {
      problems.push({ kind: 'self-link', path, key, target: id, message: `${key}: ${id} names this memory itself: ignored; remove it` });
      return undefined;
    }
    const paths = byUser.get(e.user)?.get(id);
    if (paths !== undefined) return paths;
    // Known, but not as this user's memory: another user's.
    if (ids.has(id)) {
      problems.push({
        kind: 'cross-user-link',
        path,
        key,
        target: id,
        message: `${key}: ${id} is another user's memory, not ${e.user}'s: ignored (links never cross users); remove it or name a memory of ${e.user}`,
      });
    } else {
      problems.push({ kind: 'dangling-link', path, key, target: id, message: `${key}: ${id} names no memory of ${e.user}: ignored; fix the id or remove it` });
    }
    return undefined;
  };

  // Edges of the forward links (newer → older), for the statuses and the cycle check.
  const edges: { from: string; to: string; key: 'supersedes' | 'sources' }[] = [];
  for (const path of linking) {
    const e = entries.get(path)!;
    if (e.supersedes !== undefined)
      for (const id of new Set(idList(e.supersedes)))
        for (const to of resolve(path, e, 'supersedes', id) ?? []) edges.push({ from: path, to, key: 'supersedes' });
    if (e.sources !== undefined)
      for (const id of new Set(e.sources)) for (const to of resolve(path, e, 'sources', id) ?? []) edges.push({ from: path, to, key: 'sources' });
    if (e.supersededBy) resolve(path, e, 'superseded_by', e.supersededBy);
    if (e.consolidatedInto) resolve(path, e, 'consolidated_into', e.consolidatedInto);
  }

  // Only memories with links can be on a cycle.
  const component = stronglyConnected([...new Set(edges.flatMap((edge) => [edge.from, edge.to]))], edges);
  const inCycle = (edge: { from: string; to: string }) => component.get(edge.from) === component.get(edge.to);
  const kept = edges.filter((edge) => !inCycle(edge));
  // The ids of each cycle, gathered once (most roots have none).
  const cyclic = new Set(edges.filter(inCycle).map((edge) => component.get(edge.from)!));
  const cycles = new Map<number, string[]>();
  if (cyclic.size > 0) {
    for (const [path, c] of component) if (cyclic.has(c)) cycles.set(c, [...(cycles.get(c) ?? []), entries.get(path)!.memoryId]);
    for (const ids of cycles.values()) ids.sort();
  }
  const reported = new Set<string>();
  for (const edge of edges) {
    if (!inCycle(edge) || reported.has(`${edge.from}\u0000${edge.key}`)) continue;
    reported.add(`${edge.from}\u0000${edge.key}`);
    const members = cycles.get(component.get(edge.from)!)!;
    problems.push({
      kind: 'link-cycle',
      path: edge.from,
      key: edge.key,
      target: entries.get(edge.to)!.memoryId,
      message: `${edge.key}: ${entries.get(edge.to)!.memoryId} forms a cycle (${members.join(', ')}): ignored, so none of them hides another; remove the link that is wrong`,
    });
  }

  // The effective status of each path a kept link names; every other path keeps the status its file says.
  const effective = new Map<string, MemoryStatus>();
  for (const key of ['supersedes', 'sources'] as const) {
    for (const edge of kept.filter((x) => x.key === key)) {
      const current = effective.get(edge.to) ?? fileStatusOf(entries.get(edge.to)!);
      effective.set(edge.to, current);
      if (fileStatusOf(entries.get(edge.from)!) === 'expired' || current !== 'active') continue;
      effective.set(edge.to, key === 'supersedes' ? 'superseded' : 'consolidated');
    }
  }
  for (const [path, status] of effective) if (status !== entries.get(path)!.status) restatus.set(path, status);
  for (const path of overridden) if (!effective.has(path)) restatus.set(path, fileStatusOf(entries.get(path)!));

  for (const path of unreplaced) {
    const e = entries.get(path)!;
    const own = fileStatusOf(e);
    if (own === 'superseded' && !e.supersededBy && !effective.has(path)) {
      problems.push({
        kind: 'no-successor',
        path,
        key: 'status',
        message:
          'status: superseded, but no memory supersedes it and it has no superseded_by: it is out of search for no visible reason; set status: active, or add supersedes: <this id> to the memory that replaces it',
      });
    }
    if (own === 'consolidated' && !e.consolidatedInto && !effective.has(path)) {
      problems.push({
        kind: 'no-successor',
        path,
        key: 'status',
        message:
          'status: consolidated, but no summary lists it in sources and it has no consolidated_into: set status: active, or add it to the sources of its summary',
      });
    }
  }
  return { restatus, problems };
}

/** Tarjan's strongly connected components: a component with more than one path is a cycle. */
function stronglyConnected(nodes: string[], edges: { from: string; to: string }[]): Map<string, number> {
  const out = new Map<string, string[]>();
  for (const { from, to } of edges) {
    const list = out.get(from);
    if (list) list.push(to);
    else out.set(from, [to]);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const component = new Map<string, number>();
  let counter = 0;
  // Iterative, so a long hand-written chain cannot overflow the call stack.
  for (const root of nodes) {
    if (index.has(root)) continue;
    const work: { node: string; next: number }[] = [{ node: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const succ = out.get(frame.node) ?? [];
      if (frame.next < succ.length) {
        const w = succ[frame.next++]!;
        if (!index.has(w)) {
          index.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push({ node: w, next: 0 });
        } else if (onStack.has(w)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(w)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.set(w, index.get(frame.node)!);
        } while (w !== frame.node);
      }
    }
  }
  return component;
}

/**
 * For each memory out of search because of a link, the id of the memory that replaced it: its own
 * back link (`superseded_by` / `consolidated_into`), else the first memory (by path) of the same user naming it.
 */
export function successors(entries: Map<string, ManifestEntry>): Map<string, string> {
  const namedBy = new Map<string, string>();
  for (const path of [...entries.keys()].sort()) {
    const e = entries.get(path)!;
    for (const id of [...idList(e.supersedes), ...(e.sources ?? [])]) {
      const key = scoped(e.user, id);
      if (id !== e.memoryId && !namedBy.has(key)) namedBy.set(key, e.memoryId);
    }
  }
  const out = new Map<string, string>();
  for (const [path, e] of entries) {
    if (e.status !== 'superseded' && e.status !== 'consolidated') continue;
    const next = (e.status === 'superseded' ? e.supersededBy : e.consolidatedInto) ?? namedBy.get(scoped(e.user, e.memoryId));
    if (next) out.set(path, next);
  }
  return out;
}
