// File-level relevance for memory-level results (one per file): a file's best unit plus a share of its
// second and third best, so that a log or note that matches the query in several places outranks one that
// matches as well only once (a session that answers two parts of a question). Pure and monotone: a better
// match of any of a file's units never lowers the file's relevance, and a file of one unit (a `mem add`
// fact) keeps its unit's relevance.
import type { FusedCandidate } from './fuse.js';

export interface FileScoreOptions {
  /** Share of the second best unit's relevance, of what the best leaves to 1. */
  second: number;
  /** Share of the third best's. second + third ≤ 1 keeps a file's relevance in [0, 1]. */
  third: number;
}

/** Halves, measured on the LoCoMo dev split. */
export const FILE_SCORE: FileScoreOptions = { second: 0.5, third: 0.25 };
export const NO_FILE_SCORE: FileScoreOptions = { second: 0, third: 0 };
export const DEFAULT_FILE_SCORE: FileScoreOptions = FILE_SCORE;

/**
 * best + (1 − best) · (second · 2nd + third · 3rd) over a file's relevances (any order): only the room the
 * best leaves to 1 is shared, so a strong single match stays close to a strong match with company, and
 * the result stays a relevance in [0, 1].
 */
export function fileRelevance(relevances: number[], options: FileScoreOptions = DEFAULT_FILE_SCORE): number {
  const [best = 0, second = 0, third = 0] = [...relevances].map((r) => Math.min(1, Math.max(0, r))).sort((a, b) => b - a);
  const shares = Math.min(1, Math.max(0, options.second) * second + Math.max(0, options.third) * third);
  return best + (1 - best) * shares;
}

/** Each file's relevance over the candidates (units of one file grouped by path). */
export function fileRelevances(candidates: FusedCandidate[], options: FileScoreOptions = DEFAULT_FILE_SCORE): Map<string, number> {
  const byFile = new Map<string, number[]>();
  for (const c of candidates) {
    const list = byFile.get(c.hit.record.path);
    if (list) list.push(c.relevance);
    else byFile.set(c.hit.record.path, [c.relevance]);
  }
  return new Map([...byFile].map(([path, list]) => [path, fileRelevance(list, options)]));
}
