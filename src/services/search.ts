// Use case: find a user's eligible memories for a query (hybrid dense + BM25), one result per memory.
import { UsageError } from '../errors.js';
import { assertUserId } from '../memory/ids.js';
import type { MemoryType } from '../memory/model.js';
import { NO_EXPIRY } from '../memory/records.js';
import type { MemoryDeps } from './deps.js';
import type { IndexHit, IndexScope } from './ports.js';
import { syncIndex } from './sync.js';

export interface SearchInput {
  query: string;
  /** Required unless allUsers is set explicitly. */
  user?: string;
  allUsers?: boolean;
  types?: MemoryType[];
  tags?: string[];
  k?: number;
  mode?: 'hybrid' | 'dense' | 'bm25';
}

export interface SearchResult {
  id: string;
  path: string;
  user: string;
  type: MemoryType;
  status: string;
  importance: number;
  created: string;
  updated: string;
  expires?: string;
  tags: string[];
  heading: string;
  lines: [number, number];
  content: string;
  score: number;
}

// Over-fetch so merging chunks into memories still leaves k memories.
const OVERFETCH = 4;

export function eligibilityScope(input: SearchInput, now: Date): IndexScope {
  if (!input.allUsers && !input.user) throw new UsageError('a search needs --user (or --all-users, explicitly)');
  return {
    users: input.allUsers ? 'all' : [assertUserId(input.user!)],
    statuses: ['active'],
    notExpiredAt: now.getTime(),
    ...(input.types?.length ? { types: input.types } : {}),
    ...(input.tags?.length ? { tags: input.tags } : {}),
  };
}

/** Defence in depth: a hit the filter should have excluded is dropped here too. */
function isEligible(hit: IndexHit, scope: IndexScope): boolean {
  const r = hit.record;
  if (scope.users !== 'all' && !scope.users.includes(r.user)) return false;
  if (scope.statuses && !scope.statuses.includes(r.status)) return false;
  if (scope.notExpiredAt !== undefined && r.expires <= scope.notExpiredAt) return false;
  if (scope.types && !scope.types.includes(r.type)) return false;
  return true;
}

export async function searchMemories(deps: MemoryDeps, input: SearchInput): Promise<SearchResult[]> {
  const k = input.k ?? 8;
  if (!Number.isInteger(k) || k < 1 || k > 200) throw new UsageError('k must be a whole number from 1 to 200');
  if (!input.query.trim()) throw new UsageError('the query is empty');
  const scope = eligibilityScope(input, deps.now());
  // First use of a root (no manifest yet): index it, so a fresh clone's first search finds the samples.
  if (!(await deps.manifest.load())) await syncIndex(deps);
  await deps.index.open(deps.embedder.identity);
  const mode = input.mode ?? 'hybrid';
  const queryVector = mode === 'bm25' ? new Array<number>(deps.embedder.identity.dimension).fill(0) : await deps.embedder.embedQuery(input.query);
  const hits = await deps.index.search({ scope, queryText: input.query, queryVector, limit: k * OVERFETCH, mode });
  const best = new Map<string, IndexHit>();
  for (const hit of hits) {
    if (!isEligible(hit, scope)) continue;
    const key = `${hit.record.user}\u0000${hit.record.memoryId}`;
    const seen = best.get(key);
    if (!seen || hit.score > seen.score) best.set(key, hit);
  }
  return [...best.values()]
    .sort((a, b) => b.score - a.score)
    .slice(0, k)
    .map(({ record: r, score }) => ({
      id: r.memoryId, path: r.path, user: r.user, type: r.type, status: r.status, importance: r.importance,
      created: new Date(r.created).toISOString(), updated: new Date(r.updated).toISOString(),
      ...(r.expires < NO_EXPIRY ? { expires: new Date(r.expires).toISOString() } : {}),
      tags: r.tags, heading: r.heading, lines: [r.lineStart, r.lineEnd], content: r.content, score,
    }));
}
