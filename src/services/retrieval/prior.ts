// Section prior: a unit gains a share of its section's relevance — the mean of the best few candidates
// under the same heading of the same file. A session of a log, or a day's entry, that matches the query in
// several places is more likely the one that holds the answer, even in a unit that shares no word with it.
// Keyed by section, not file: a day log holds several sessions. Pure and monotone: a better own match, or a
// better match elsewhere in the section, never scores lower.
import type { FusedCandidate } from './fuse.js';

export interface PriorOptions {
  /** Share of the section's relevance added to a unit's own (0 turns the prior off). */
  share: number;
  /** How many of the section's best candidates its relevance is the mean of. */
  top: number;
  /**
   * true: a unit gains max(own, section), so the prior only lifts (the best unit of a section, hence every
   * memory-level result, keeps its relevance). false: it gains the section's relevance itself, so the best
   * unit of a section that matches in one place only falls below that of a section that matches in several.
   */
  onlyLifts: boolean;
}

/** The shares measured on the LoCoMo dev split. */
export const SECTION_PRIOR: PriorOptions = { share: 0.3, top: 3, onlyLifts: true };
export const NO_PRIOR: PriorOptions = { ...SECTION_PRIOR, share: 0 };
export const DEFAULT_PRIOR: PriorOptions = NO_PRIOR;

const sectionOf = (c: FusedCandidate) => `${c.hit.record.path}\u0000${c.hit.record.heading}`;

/** Each section's relevance: the mean of its best `top` candidates (fewer when it has fewer). */
export function sectionRelevance(candidates: FusedCandidate[], top: number): Map<string, number> {
  const bySection = new Map<string, number[]>();
  for (const c of candidates) {
    const key = sectionOf(c);
    const list = bySection.get(key) ?? [];
    list.push(c.relevance);
    bySection.set(key, list);
  }
  const out = new Map<string, number>();
  for (const [key, list] of bySection) {
    const best = list.sort((a, b) => b - a).slice(0, Math.max(1, top));
    out.set(key, best.reduce((s, v) => s + v, 0) / best.length);
  }
  return out;
}

/**
 * New relevance per unit, still in [0, 1]: (own + share·section) / (1 + share), with max(own, section) in
 * place of section when onlyLifts. Either way a unit alone in its section (an atomic fact, a one-line note)
 * has its own relevance as the section's and keeps it, so short memories are not pushed below long logs by
 * their lack of siblings.
 */
export function withSectionPrior(candidates: FusedCandidate[], options: PriorOptions = DEFAULT_PRIOR): FusedCandidate[] {
  if (options.share <= 0) return candidates;
  const sections = sectionRelevance(candidates, options.top);
  return candidates
    .map((c) => {
      const section = sections.get(sectionOf(c))!;
      return { ...c, relevance: (c.relevance + options.share * (options.onlyLifts ? Math.max(c.relevance, section) : section)) / (1 + options.share) };
    })
    .sort((a, b) => b.relevance - a.relevance);
}
