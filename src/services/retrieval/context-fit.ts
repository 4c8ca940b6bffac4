// Fits a context block's memories into its token budget: each memory in rank order, whole while it fits;
// one that does not fit is cut to the run of paragraphs around what the query names, so the budget's end
// holds evidence rather than nothing. Pure.
import { isStopWord } from '../../memory/lexical.js';
import type { ContextMemory } from './context-passages.js';

/** A memory's paragraphs in order, each with the passage it belongs to. */
export interface Unit {
  passage: number;
  /** Index of the paragraph within its passage. */
  index: number;
  text: string;
}

/** The units of a memory the block shows: units[i] for each i of `shown`, ascending. */
export interface Kept {
  memory: ContextMemory;
  units: Unit[];
  shown: number[];
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

export const unitsOf = (memory: ContextMemory): Unit[] =>
  memory.passages.flatMap((p, passage) => p.paragraphs.map((text, index) => ({ passage, index, text })));

export function queryTerms(query: string | undefined): Set<string> {
  const words = (query ?? '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return new Set(words.filter((w) => w.length > 2 && !isStopWord(w)));
}

/**
 * The unit naming most of the query's words, a word weighed by how few of the memory's units name it (a speaker's
 * name on every turn tells none apart); the first on a tie or without a query.
 */
export function focusOf(units: Unit[], terms: Set<string>): number {
  const words = units.map((u) => new Set(u.text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []));
  const weight = new Map([...terms].map((t) => [t, Math.log((units.length + 1) / (words.filter((w) => w.has(t)).length || units.length + 1))]));
  let best = 0;
  let bestScore = 0;
  words.forEach((w, i) => {
    let score = 0;
    for (const [t, wt] of weight) if (w.has(t)) score += wt;
    if (score > bestScore + 1e-9) {
      best = i;
      bestScore = score;
    }
  });
  return best;
}

/**
 * The runs that fit in `budget` tokens, in rank order, given `cost` (the tokens a run takes as rendered after `kept`).
 * A memory whose focus alone does not fit is left out, and the next ones are still tried.
 */
export function fitMemories(
  memories: ContextMemory[],
  budget: number,
  cost: (k: Kept, kept: Kept[]) => number,
  terms: Set<string>,
): { kept: Kept[]; omitted: ContextMemory[]; tokens: number } {
  const kept: Kept[] = [];
  const omitted: ContextMemory[] = [];
  let left = budget;
  for (const memory of memories) {
    const units = unitsOf(memory);
    if (units.length === 0) {
      omitted.push(memory);
      continue;
    }
    const whole: Kept = { memory, units, shown: range(0, units.length - 1) };
    const wholeCost = cost(whole, kept);
    if (wholeCost <= left) {
      kept.push(whole);
      left -= wholeCost;
      continue;
    }
    const focus = focusOf(units, terms);
    let [from, to] = [focus, focus];
    let runCost = cost({ memory, units, shown: [focus] }, kept);
    if (runCost > left) {
      omitted.push(memory);
      continue;
    }
    // Grow one unit at a time, after then before, while the run still fits.
    for (let grew = true; grew;) {
      grew = false;
      for (const [df, dt] of [
        [0, 1],
        [-1, 0],
      ] as const) {
        const [f, t] = [from + df, to + dt];
        if (f < 0 || t >= units.length) continue;
        const c = cost({ memory, units, shown: range(f, t) }, kept);
        if (c <= left) {
          [from, to, runCost] = [f, t, c];
          grew = true;
        }
      }
    }
    kept.push({ memory, units, shown: range(from, to) });
    left -= runCost;
  }
  return { kept, omitted, tokens: budget - left };
}
