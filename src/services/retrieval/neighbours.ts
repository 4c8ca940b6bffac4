// Context signals over the fused candidates: a chunk borrows a share of the relevance of the best
// adjacent chunk of its file (an answer often follows the lines that hold the question's words: a
// reply in a conversation log, the line after a heading in a note), and a share of its file's
// relevance (the mean of the file's best chunks: a log or note that matches in several places is
// more likely the one). Pure; both are monotone, so a better match never scores lower.
import type { FusedCandidate } from './fuse.js';

export interface ContextOptions {
  /** Share of the best adjacent chunk's relevance added to a chunk's own. */
  neighbour: number;
  /** Share of the file's relevance (mean of its best `fileTop` chunks) added to a chunk's own. */
  file: number;
  fileTop: number;
  /**
   * Only chunks of at most this many characters borrow context: a short chunk (one turn, one line of
   * a log) lacks it, a long one carries its own, and its neighbour is as long and about other things.
   */
  maxChars: number;
  /** The same gate for the file's share alone (default maxChars): a long chunk of a matching log may still gain from its file. */
  fileMaxChars?: number;
}

// The shares measured on the LoCoMo dev split over ~1,500-character chunks.
export const CONTEXT_SHARES: ContextOptions = { neighbour: 0.5, file: 0.3, fileTop: 3, maxChars: 500 };
export const NO_CONTEXT: ContextOptions = { ...CONTEXT_SHARES, neighbour: 0, file: 0 };
// Off by default since units and windows: over units, on top of the window
// signal, neither added turn recall and both cost session recall.
export const DEFAULT_CONTEXT: ContextOptions = NO_CONTEXT;

// Two chunks of a file are adjacent when at most this many (blank) lines lie between them: chunks
// of one section are separated by one blank line, a section's first block by its heading's.
const MAX_GAP_LINES = 2;

/**
 * New relevance per candidate, still in [0, 1]: (own + neighbour·max(own, best adjacent) +
 * file·max(own, file mean)) / (1 + neighbour + file). Only candidates count: a chunk that neither list returned adds nothing.
 */
export function withContext(candidates: FusedCandidate[], options: ContextOptions = DEFAULT_CONTEXT): FusedCandidate[] {
  if (options.neighbour <= 0 && options.file <= 0) return candidates;
  const byPath = new Map<string, FusedCandidate[]>();
  for (const c of candidates) {
    const list = byPath.get(c.hit.record.path) ?? [];
    list.push(c);
    byPath.set(c.hit.record.path, list);
  }
  const neighbourOf = new Map<FusedCandidate, number>();
  const fileOf = new Map<string, number>();
  for (const [path, list] of byPath) {
    list.sort((a, b) => a.hit.record.lineStart - b.hit.record.lineStart);
    list.forEach((c, i) => {
      const near = [list[i - 1], list[i + 1]].filter((n): n is FusedCandidate => n !== undefined && adjacent(n, c));
      neighbourOf.set(c, Math.max(0, ...near.map((n) => n.relevance)));
    });
    const top = list
      .map((c) => c.relevance)
      .sort((a, b) => b - a)
      .slice(0, Math.max(1, options.fileTop));
    fileOf.set(path, top.reduce((s, v) => s + v, 0) / top.length);
  }
  const total = 1 + options.neighbour + options.file;
  return candidates
    .map((c) => {
      // Context only lifts: a chunk whose neighbours and file match worse than it does (an isolated
      // fact, a long chunk) keeps its own relevance, so short memories are not pushed below logs.
      const length = c.hit.record.content.length;
      const near = length <= options.maxChars ? Math.max(c.relevance, neighbourOf.get(c)!) : c.relevance;
      const file = length <= (options.fileMaxChars ?? options.maxChars) ? Math.max(c.relevance, fileOf.get(c.hit.record.path)!) : c.relevance;
      return { ...c, relevance: (c.relevance + options.neighbour * near + options.file * file) / total };
    })
    .sort((a, b) => b.relevance - a.relevance);
}

function adjacent(a: FusedCandidate, b: FusedCandidate): boolean {
  const [first, second] = a.hit.record.lineStart <= b.hit.record.lineStart ? [a, b] : [b, a];
  const gap = second.hit.record.lineStart - first.hit.record.lineEnd - 1;
  return gap >= 0 && gap <= MAX_GAP_LINES;
}
