// Diversity of the top k: the ranked results are re-picked place by place so that one section (or file)
// does not fill them all. A unit and its window neighbours score alike, so without this the top places of
// a log often hold three turns of one session while a second session with the other half of the answer
// waits below. Pure work over the candidates already ranked, no extra index call; it only reorders.
import { lexicalForm } from '../../memory/lexical.js';
import type { Ranked } from './rerank.js';

export interface DiversityOptions {
  /** What counts as the same place: a section (a file's heading) or the whole file. */
  by: 'section' | 'file';
  /**
   * A result's score is multiplied by this for each result of its place already picked above (1: off).
   * `once` applies it at most once, so a result is never placed below one scoring less than factor·its score.
   */
  factor: number;
  once?: boolean;
  /** Added per share of the query's keywords a result holds that no result above holds yet (0: off). */
  coverage?: number;
  /**
   * The first places go to the best result of each of this many best places, a place scored by its
   * results as (best + mean of its best three) / 2, in the order of those results' scores (0: off).
   */
  places?: number;
}

/** No reordering: the ranking as relevance and rescoring left it. */
export const NO_DIVERSITY: DiversityOptions = { by: 'section', factor: 1 };
/**
 * A light touch: a unit whose file already has a result above counts 0.95 of its score, once. The windows and the
 * neighbours across sections lift a strong match's neighbours, from its file, so without it the ten results held
 * fewer sessions (files) than hybrid fusion's; stronger discounts spread them further but cost the units' own recall
 * (docs/decisions/file-diversity.md). A one-result-per-memory list (the context block, the MCP answer) is unchanged.
 */
export const DEFAULT_DIVERSITY: DiversityOptions = { by: 'file', factor: 0.95, once: true };

export function placeOf(r: Ranked['c']['hit']['record'], by: DiversityOptions['by']): string {
  return by === 'file' ? r.path : `${r.path}\u0000${r.heading}`;
}

// The keyword form's words (stemmed, stop words dropped), without the punctuation it passes through.
const keywords = (text: string) =>
  new Set(
    lexicalForm(text)
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [],
  );

/** A place's score from its results' scores (best first): the best, and how well its next ones back it. */
export function placeScore(scores: number[]): number {
  const top = scores.slice(0, 3);
  return (top[0]! + top.reduce((s, x) => s + x, 0) / top.length) / 2;
}

/** The first places: the best result of each of the `n` best places, best result first. */
function firstOfPlaces<T extends Ranked>(ranked: T[], n: number, by: DiversityOptions['by']): T[] {
  const groups = new Map<string, T[]>();
  for (const t of ranked) {
    const key = placeOf(t.c.hit.record, by);
    groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  return [...groups.values()]
    .map((g) => ({ best: g[0]!, score: placeScore(g.map((t) => t.parts.score)) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, n)
    .map((g) => g.best)
    .sort((a, b) => b.parts.score - a.parts.score);
}

/**
 * `ranked` (best first) with its first `k` places re-picked greedily: each place goes to the result with
 * the best score × factor^(results of its place above) + coverage · (share of new query keywords); the
 * rest follow in their order. Monotone: a result whose score rises never moves down.
 */
export function diversify<T extends Ranked>(ranked: T[], k: number, query: string, options: DiversityOptions): T[] {
  const coverage = options.coverage ?? 0;
  const places = options.places ?? 0;
  if (ranked.length < 2 || (options.factor >= 1 && coverage <= 0 && places <= 0)) return ranked;
  const wanted = coverage > 0 ? keywords(query) : new Set<string>();
  const holds = wanted.size > 0 ? new Map(ranked.map((t) => [t, [...keywords(t.c.hit.record.content)].filter((w) => wanted.has(w))])) : new Map<T, string[]>();
  const picked: T[] = places > 0 ? firstOfPlaces(ranked, places, options.by) : [];
  const rest = ranked.filter((t) => !picked.includes(t));
  const seen = new Map<string, number>();
  const covered = new Set<string>();
  const note = (t: T) => {
    const key = placeOf(t.c.hit.record, options.by);
    seen.set(key, (seen.get(key) ?? 0) + 1);
    for (const w of holds.get(t) ?? []) covered.add(w);
  };
  picked.forEach(note);
  const value = (t: T) => {
    const above = seen.get(placeOf(t.c.hit.record, options.by)) ?? 0;
    const fresh = wanted.size > 0 ? (holds.get(t) ?? []).filter((w) => !covered.has(w)).length / wanted.size : 0;
    return t.parts.score * options.factor ** (options.once ? Math.min(above, 1) : above) + coverage * fresh;
  };
  while (picked.length < k && rest.length > 0) {
    let best = 0;
    for (let i = 1; i < rest.length; i++) if (value(rest[i]!) > value(rest[best]!)) best = i;
    const [t] = rest.splice(best, 1);
    picked.push(t!);
    note(t!);
  }
  return [...picked, ...rest];
}
