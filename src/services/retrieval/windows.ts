// Window signal: a unit (a turn, a list item, a paragraph) gains a share of the relevance of the best
// context window that contains it — a few neighbouring units of its section, embedded and indexed as rows
// of their own (memory/units.ts). An answer often sits beside the lines that hold the question's words: a
// reply after the question in a conversation, an entry under a day's heading. Pure and monotone: a better
// own match, or a better window around it, never scores lower.
import type { IndexHit } from '../ports.js';
import type { FusedCandidate } from './fuse.js';

/** The share measured on the LoCoMo dev split. */
export const DEFAULT_WINDOW_SHARE = 0.7;
/** How many of the best windows bring in their units that neither signal returned. */
export const DEFAULT_EXPAND = 5;

/** A window's line range, for finding the units inside it. */
export interface WindowSpan {
  path: string;
  lineStart: number;
  lineEnd: number;
  relevance: number;
}

export function spanOf(c: FusedCandidate): WindowSpan {
  return { path: c.hit.record.path, lineStart: c.hit.record.lineStart, lineEnd: c.hit.record.lineEnd, relevance: c.relevance };
}

/** The best relevance of the windows that contain lines [lineStart, lineEnd] of the file, or 0. */
export function bestWindow(windows: WindowSpan[], path: string, lineStart: number, lineEnd: number): number {
  let best = 0;
  for (const w of windows) if (w.path === path && w.lineStart <= lineStart && w.lineEnd >= lineEnd && w.relevance > best) best = w.relevance;
  return best;
}

/**
 * New relevance per unit, still in [0, 1]: (own + share·max(own, best window)) / (1 + share). The window
 * only lifts: a unit that no window contains (an atomic fact, alone in its file) keeps its own relevance,
 * so short memories are not pushed below log lines by their lack of neighbours.
 */
export function withWindows(units: FusedCandidate[], windows: WindowSpan[], share: number): FusedCandidate[] {
  if (share <= 0 || windows.length === 0) return units;
  return units
    .map((c) => {
      const r = c.hit.record;
      const window = bestWindow(windows, r.path, r.lineStart, r.lineEnd);
      return { ...c, relevance: (c.relevance + share * Math.max(c.relevance, window)) / (1 + share), ...(window > 0 ? { window } : {}) };
    })
    .sort((a, b) => b.relevance - a.relevance);
}

/** Units inside the best windows that are not candidates yet, with no relevance of their own (only their window's). */
export function unseenUnits(candidates: FusedCandidate[], inside: IndexHit['record'][]): FusedCandidate[] {
  const seen = new Set(candidates.map((c) => c.hit.record.chunkId));
  const out: FusedCandidate[] = [];
  for (const record of inside) {
    if (seen.has(record.chunkId)) continue;
    seen.add(record.chunkId);
    out.push({ hit: { record, score: 0 }, relevance: 0 });
  }
  return out;
}
