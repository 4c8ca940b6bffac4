// Name signal: words the query capitalises mid-sentence (people, places, products: "did Melanie
// show Caroline") lift the candidates that contain them, in proportion to how many they contain.
// BM25 alone lets a common word outweigh a rare name split over many turns. Pure and monotone.
import { isStopWord } from '../../memory/lexical.js';
import type { FusedCandidate } from './fuse.js';

// A capitalised Latin word not at the start of the query or of a sentence; "I" and all-caps acronyms of
// two letters are not names.
const NAME = /(?<![.!?]\s|^)(?<=\s|["'(])\p{Lu}[\p{Ll}\p{Lu}'’-]+/gu;

/** The share measured on the LoCoMo dev split, and whether search uses it by default. */
export const NAME_SHARE = 0.2;
export const DEFAULT_NAME_SHARE = 0;

/** The names of a query, lowercased, possessive "'s" removed. */
export function queryNames(query: string): string[] {
  const found = query.trim().match(NAME) ?? [];
  return [...new Set(found.map((w) => w.toLowerCase().replace(/['’]s$/, '')).filter((w) => w.length > 1 && !isStopWord(w)))];
}

function containsWord(text: string, word: string): boolean {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'iu').test(text);
}

/**
 * New relevance in [0, 1]: (own + share·fraction of the query's names in the chunk) / (1 + share).
 * A query without names, or share 0, changes nothing.
 */
export function withNames(candidates: FusedCandidate[], query: string, share: number): FusedCandidate[] {
  const names = queryNames(query);
  if (share <= 0 || names.length === 0) return candidates;
  return candidates
    .map((c) => {
      const matched = names.filter((n) => containsWord(c.hit.record.content, n)).length / names.length;
      return { ...c, relevance: (c.relevance + share * matched) / (1 + share) };
    })
    .sort((a, b) => b.relevance - a.relevance);
}
