// Window term: every unit gains a share of the relevance of the best
// context window containing it, into the room its own relevance leaves to 1 — not only when the window
// matches better than the unit, as windows.ts's lift does. With the second dense field a unit's own
// relevance is on a three-way scale and windows (which have no second vector) on the two-way one, so
// windows.ts's max(own, window) rarely lifts a unit mpnet likes; the pool analysis found the evidence in
// windows that match well on both sides. Pure and monotone: a better own match, or a better window around
// it, never scores lower; a unit no window contains (an atomic fact) keeps its relevance.
import type { FusedCandidate } from './fuse.js';
import { bestWindow, type WindowSpan } from './windows.js';

/** Off without the second dense field: measured offline only there. */
export const DEFAULT_WINDOW_TERM = 0;
/**
 * The share when the second dense field answers: a unit's own relevance then has mpnet in it and its windows'
 * has not, so windows.ts's max(own, window) rarely lifts it; this term does.
 */
export const SECOND_WINDOW_TERM = 0.2;

/** New relevance per unit, still in [0, 1]: own + share · best window · (1 − own). */
export function withWindowTerm(units: FusedCandidate[], windows: WindowSpan[], share: number): FusedCandidate[] {
  if (share <= 0 || windows.length === 0) return units;
  return units
    .map((c) => {
      const r = c.hit.record;
      const window = bestWindow(windows, r.path, r.lineStart, r.lineEnd);
      return { ...c, relevance: c.relevance + share * window * (1 - c.relevance) };
    })
    .sort((a, b) => b.relevance - a.relevance);
}
