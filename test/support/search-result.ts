// One search result for pure tests of what reaches an agent: an active episodic memory of user `ann`; tests name what matters.
import type { SearchResult } from '../../src/services/search.js';

export function searchResult(content: string, fields: Partial<SearchResult> = {}): SearchResult {
  return {
    id: 'm2',
    path: 'ann/semantic/m2.md',
    user: 'ann',
    type: 'episodic',
    status: 'active',
    importance: 0.5,
    created: '2026-11-03T00:00:00.000Z',
    updated: '2026-11-03T00:00:00.000Z',
    tags: [],
    heading: '',
    lines: [5, 5],
    content,
    score: 0.81234,
    scores: { relevance: 1, recency: 1, importance: 0.5 },
    eligibility: '',
    ...fields,
  };
}
