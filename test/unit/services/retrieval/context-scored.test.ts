// Fitting a block by the units the search scored: what a unit is worth, and which units a budget takes.
import { describe, expect, it } from 'vitest';

import { unitsOf, type Kept } from '../../../../src/services/retrieval/context-fit.js';
import type { ContextMemory } from '../../../../src/services/retrieval/context-passages.js';
import { fitScored, worthOf } from '../../../../src/services/retrieval/context-scored.js';

const memory = (id: string, passages: string[][], scores: Record<string, number>): ContextMemory => ({
  id,
  type: 'episodic',
  created: '2023-05-08T00:00:00Z',
  ids: [id],
  passages: passages.map((paragraphs, i) => ({ heading: '', paragraphs, gapBefore: i > 0 })),
  scores: new Map(Object.entries(scores)),
});
// One token per unit shown, one per memory's header.
const cost = (k: Kept) => 1 + k.shown.length;

describe('worthOf', () => {
  it('gives a scored unit its score, its neighbours less per unit apart (the one after more than the one before), a passage after a gap in the file nothing', () => {
    const m = memory('m', [['a', 'b', 'c', 'd', 'e'], ['f']], { c: 1 });
    const [a, b, c, d, e, f] = worthOf(m, unitsOf(m), m.scores!);
    expect(c).toBe(1);
    expect(d).toBeGreaterThan(b!);
    expect(b).toBeGreaterThan(a!);
    expect(d).toBeGreaterThan(e!);
    expect(f).toBe(0);
  });
});

describe('fitScored', () => {
  it("takes the best units of every memory before the rest of the first one's, and keeps memories in rank order", () => {
    const first = memory('first', [['a1', 'a2', 'a3', 'a4', 'a5', 'a6']], { a1: 0.9 });
    const second = memory('second', [['b1', 'b2', 'b3']], { b2: 0.8 });
    const { kept, omitted, tokens } = fitScored([first, second], 6, cost);
    expect(kept.map((k) => [k.memory.id, k.shown.map((i) => k.units[i]!.text)])).toEqual([
      ['first', ['a1', 'a2']],
      ['second', ['b2', 'b3']],
    ]);
    expect(omitted).toEqual([]);
    expect(tokens).toBe(6);
  });

  it('skips a unit that does not fit and still takes smaller ones; omits a memory with nothing shown', () => {
    const first = memory('first', [['big', 'x']], { big: 0.9, x: 0.5 });
    const second = memory('second', [['y']], { y: 0.1 });
    const { kept, omitted } = fitScored([first, second], 3, (k) => 1 + k.shown.reduce((sum, i) => sum + (k.units[i]!.text === 'big' ? 10 : 1), 0));
    expect(kept.map((k) => [k.memory.id, k.shown])).toEqual([['first', [1]]]);
    expect(omitted.map((m) => m.id)).toEqual(['second']);
  });
});
