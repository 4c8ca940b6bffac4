// The oracle of the link tests: resolveLinks as it was before links cost what links (main at 7f3a60d), a full pass
// over every entry that gives every path's status. Kept verbatim, so the incremental pass is checked against it.
import { idList, type MemoryStatus } from '../../src/memory/model.js';
import { fileStatusOf, type LinkKey, type LinkProblem, type ResolvedLinks } from '../../src/services/core/links.js';
import type { ManifestEntry } from '../../src/services/ports.js';

export function referenceResolveLinks(entries: Map<string, ManifestEntry>): ResolvedLinks {
  // Every sync runs this over all entries (50,000 at scale): only links allocate, a memory without any costs a lookup.
  const byUser = new Map<string, Map<string, string | string[]>>();
  const ids = new Set<string>();
  for (const [path, e] of entries) {
    let byId = byUser.get(e.user);
    if (!byId) byUser.set(e.user, (byId = new Map()));
    const paths = byId.get(e.memoryId);
    if (paths === undefined) byId.set(e.memoryId, path);
    else if (typeof paths === 'string') byId.set(e.memoryId, [paths, path]);
    else paths.push(path);
    ids.add(e.memoryId);
  }
  const problems: LinkProblem[] = [];

  /** The paths a link of `path` names, or undefined (and a problem) when it names none it may. */
  const resolve = (path: string, e: ManifestEntry, key: LinkKey, id: string): string[] | undefined => {
    if (id === e.memoryId) {
      problems.push({ kind: 'self-link', path, key, target: id, message: `${key}: ${id} names this memory itself: ignored; remove it` });
      return undefined;
    }
    const paths = byUser.get(e.user)?.get(id);
    if (paths !== undefined) return typeof paths === 'string' ? [paths] : paths;
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
  for (const [path, e] of entries) {
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

  const statuses = new Map<string, MemoryStatus>();
  for (const [path, e] of entries) statuses.set(path, fileStatusOf(e));
  const named = new Set<string>();
  for (const key of ['supersedes', 'sources'] as const) {
    for (const edge of kept.filter((x) => x.key === key)) {
      named.add(edge.to);
      if (fileStatusOf(entries.get(edge.from)!) === 'expired' || statuses.get(edge.to) !== 'active') continue;
      statuses.set(edge.to, key === 'supersedes' ? 'superseded' : 'consolidated');
    }
  }

  for (const [path, e] of entries) {
    const own = fileStatusOf(e);
    if (own === 'superseded' && !e.supersededBy && !named.has(path)) {
      problems.push({
        kind: 'no-successor',
        path,
        key: 'status',
        message:
          'status: superseded, but no memory supersedes it and it has no superseded_by: it is out of search for no visible reason; set status: active, or add supersedes: <this id> to the memory that replaces it',
      });
    }
    if (own === 'consolidated' && !e.consolidatedInto && !named.has(path)) {
      problems.push({
        kind: 'no-successor',
        path,
        key: 'status',
        message:
          'status: consolidated, but no summary lists it in sources and it has no consolidated_into: set status: active, or add it to the sources of its summary',
      });
    }
  }
  return { statuses, problems };
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
