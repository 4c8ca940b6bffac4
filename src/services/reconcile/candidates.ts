// Finds the memories a new one is reconciled against: the user's active, unexpired memories of the same
// type that are closest in meaning, plus any active memory filling the same key.
import type { MemoryType } from '../../memory/model.js';
import type { DepsUsing } from '../core/deps.js';
import { loadDoc } from '../core/documents.js';
import type { ManifestEntry, IndexOpener, IndexSearcher } from '../ports.js';
import type { Candidate } from './decision.js';
import { incomingVector } from './incoming-vector.js';

const MAX_SIMILAR = 5;

export interface CandidateQuery {
  text: string;
  user: string;
  type: MemoryType;
  key?: string;
}

export async function findCandidates(
  deps: DepsUsing<IndexOpener & IndexSearcher>,
  query: CandidateQuery,
  manifest: Map<string, ManifestEntry>,
  now: Date,
): Promise<Candidate[]> {
  await deps.index.open(deps.embedder.identity);
  // Passage mode on both sides: this compares two statements, not a question with an answer.
  const vector = await incomingVector(deps, query.text);
  const hits = await deps.index.search({
    mode: 'dense',
    scope: { users: [query.user], statuses: ['active'], types: [query.type], notExpiredAt: now.getTime() },
    queryVector: vector,
    limit: MAX_SIMILAR * 4,
  });
  const best = new Map<string, { path: string; similarity: number }>();
  for (const h of hits) {
    const seen = best.get(h.record.memoryId);
    if (!seen || h.score > seen.similarity) best.set(h.record.memoryId, { path: h.record.path, similarity: h.score });
  }
  const similar = [...best].sort((a, b) => b[1].similarity - a[1].similarity).slice(0, MAX_SIMILAR);
  const byPath = new Map(similar.map(([, v]) => [v.path, v.similarity]));
  if (query.key) {
    for (const [path, e] of manifest) {
      const live = e.status === 'active' && (e.expires === undefined || e.expires > now.getTime());
      if (e.user === query.user && e.key === query.key && live && !byPath.has(path)) byPath.set(path, 0);
    }
  }
  const candidates: Candidate[] = [];
  for (const [path, similarity] of byPath) {
    const doc = await loadDoc(deps, path).catch(() => null); // a file broken since the last sync is no candidate
    if (!doc || doc.meta.user !== query.user || doc.meta.status !== 'active') continue;
    candidates.push({
      id: doc.meta.id,
      path,
      text: doc.body.trim(),
      created: doc.meta.created,
      similarity,
      ...(doc.meta.key ? { key: doc.meta.key } : {}),
      ...(doc.meta.source ? { source: doc.meta.source } : {}),
    });
  }
  return candidates;
}
