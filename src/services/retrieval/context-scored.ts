// Fits a context block from the units the search scored: a unit the search scored is worth its score, any other
// unit of the same passage the score of the nearest scored one, less per unit apart; the block takes units by worth,
// best first, while they fit, and shows each memory's units in file order under one header. Pure.
import { unitsOf, type Kept, type Unit } from './context-fit.js';
import type { ContextMemory } from './context-passages.js';

// What a unit next to a scored one is worth against it, per unit apart: the one after (a reply follows what it
// answers, a detail its lead) keeps more of it than the one before.
const AFTER = 0.85;
const BEFORE = 0.7;

interface Candidate {
  memory: number;
  unit: number;
  worth: number;
}

/**
 * Each unit's worth: the best of the scored units of its run of the file (passages with no gap between them),
 * discounted per unit apart (0: none in its run).
 */
export function worthOf(memory: ContextMemory, units: Unit[], scores: Map<string, number>): number[] {
  let run = 0;
  const runOf = memory.passages.map((p) => (p.gapBefore ? ++run : run));
  const own = units.map((u) => scores.get(u.text));
  return units.map((u, i) => {
    let worth = 0;
    own.forEach((score, j) => {
      if (score !== undefined && runOf[units[j]!.passage] === runOf[u.passage]) worth = Math.max(worth, score * (i > j ? AFTER : BEFORE) ** Math.abs(i - j));
    });
    return worth;
  });
}

/**
 * The units that fit in `budget` tokens, taken by worth, given `cost` (the tokens a memory's shown units take as
 * rendered after the others kept): a unit that does not fit is skipped and the next ones still tried. The kept
 * memories stay in rank order; a memory none of whose units fit is omitted.
 */
export function fitScored(
  memories: ContextMemory[],
  budget: number,
  cost: (k: Kept, kept: Kept[]) => number,
): { kept: Kept[]; omitted: ContextMemory[]; tokens: number } {
  const units = memories.map(unitsOf);
  const candidates: Candidate[] = memories.flatMap((m, memory) =>
    worthOf(m, units[memory]!, m.scores ?? new Map()).map((worth, unit) => ({ memory, unit, worth })),
  );
  // On equal worth the better-ranked memory, then the earlier unit.
  candidates.sort((a, b) => b.worth - a.worth || a.memory - b.memory || a.unit - b.unit);
  const shown = new Map<number, number[]>();
  const keptOf = (memory: number, list: number[]): Kept => ({ memory: memories[memory]!, units: units[memory]!, shown: list });
  let left = budget;
  for (const c of candidates) {
    if (c.worth <= 0) break;
    const before = shown.get(c.memory);
    const after = [...(before ?? []), c.unit].sort((a, b) => a - b);
    const others = [...shown].filter(([m]) => m !== c.memory).map(([m, list]) => keptOf(m, list));
    // What adding the unit costs: its lines, and the header, heading, group title or "…" it brings along.
    const extra = cost(keptOf(c.memory, after), others) - (before ? cost(keptOf(c.memory, before), others) : 0);
    if (extra > left) continue;
    shown.set(c.memory, after);
    left -= extra;
  }
  const kept = [...shown.keys()].sort((a, b) => a - b).map((m) => keptOf(m, shown.get(m)!));
  return { kept, omitted: memories.filter((_, m) => !shown.has(m)), tokens: budget - left };
}
