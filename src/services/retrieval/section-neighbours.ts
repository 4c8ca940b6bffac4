// Neighbours across one-unit sections: a file whose every section holds a single short unit (a transcript with
// a heading per turn) has no context windows, since a window never crosses a section's heading, so the reply
// after a question gains nothing from the question's match. There a unit borrows a share of the relevance of
// the unit next to it, as a window would lend it. The rule reads the memory's shape, not where it came from: a
// unit that opens its section (its heading joined it) beside another that opens the next. Units of a section
// with several units are left to the windows. Pure and monotone: a better own match, or a better neighbour,
// never scores lower.
import type { IndexHit } from '../ports.js';
import type { FusedCandidate } from './fuse.js';

type Row = IndexHit['record'];

/** The share measured on the LoCoMo dev split, one section per turn; 0 turns the signal off. */
export const DEFAULT_SECTION_NEIGHBOUR = 0.5;
// Only candidates lend and borrow: bringing in the neighbours of the best turns that neither list returned (as the
// windows bring in their units) found no more evidence on the dev split and cost file reads.

/** Longer units carry their own context, and their neighbour is as long and about other things. */
const MAX_CHARS = 500;
// The blank line between two sections' units, and the heading's own blank line: at most this many lines apart.
const MAX_GAP_LINES = 2;
const HEADING_LINE = /^#{1,6}\s/;

/** A short unit whose text starts with its section's heading: the first (in a one-unit section, the only) unit. */
export function opensSection(row: Pick<Row, 'content'>): boolean {
  return row.content.length <= MAX_CHARS && HEADING_LINE.test(row.content);
}

/** Two units next to each other in one file, each opening a section of its own: no window holds both. */
export function acrossSections(a: Row, b: Row): boolean {
  if (a.path !== b.path || a.heading === b.heading || !opensSection(a) || !opensSection(b)) return false;
  const [first, second] = a.lineStart <= b.lineStart ? [a, b] : [b, a];
  const gap = second.lineStart - first.lineEnd - 1;
  return gap >= 0 && gap <= MAX_GAP_LINES;
}

/**
 * New relevance per unit, still in [0, 1]: (own + share·max(own, best neighbour across sections)) / (1 + share).
 * A unit with no such neighbour among the candidates (a unit inside a longer section, an atomic fact) keeps its own.
 */
export function withSectionNeighbours(units: FusedCandidate[], share: number): FusedCandidate[] {
  if (share <= 0) return units;
  const byPath = new Map<string, FusedCandidate[]>();
  for (const c of units) {
    if (!opensSection(c.hit.record)) continue;
    const list = byPath.get(c.hit.record.path) ?? [];
    list.push(c);
    byPath.set(c.hit.record.path, list);
  }
  const near = new Map<FusedCandidate, number>();
  for (const list of byPath.values()) {
    if (list.length < 2) continue;
    list.sort((a, b) => a.hit.record.lineStart - b.hit.record.lineStart);
    list.forEach((c, i) => {
      const best = [list[i - 1], list[i + 1]]
        .filter((n): n is FusedCandidate => n !== undefined && acrossSections(n.hit.record, c.hit.record))
        .reduce((m, n) => Math.max(m, n.relevance), 0);
      if (best > c.relevance) near.set(c, best);
    });
  }
  if (near.size === 0) return units;
  return units
    .map((c) => {
      const best = near.get(c);
      return best === undefined ? c : { ...c, relevance: (c.relevance + share * best) / (1 + share) };
    })
    .sort((a, b) => b.relevance - a.relevance);
}
