// Fitting a block's memories into its budget: whole in rank order, the one that does not fit cut around its focus.
import { describe, expect, it } from 'vitest';

import { fitMemories, focusOf, queryTerms, unitsOf, type Kept } from '../../../../src/services/retrieval/context-fit.js';
import type { ContextMemory } from '../../../../src/services/retrieval/context-passages.js';

const memory = (id: string, paragraphs: string[]): ContextMemory => ({
  id,
  type: 'episodic',
  created: '2023-05-08T00:00:00Z',
  ids: [id],
  passages: [{ heading: '', paragraphs, gapBefore: false }],
});
// One token per paragraph shown, one for the header.
const cost = (k: Kept) => 1 + k.shown.length;

describe('focusOf', () => {
  it('picks the paragraph naming the query, not the speaker every turn names', () => {
    const units = unitsOf(memory('m', ['Ann: hello there.', 'Ann: the weather is fine.', 'Ann: I planted tulips in April.', 'Bob: nice.']));
    expect(focusOf(units, queryTerms('When did Ann plant tulips?'))).toBe(2);
    expect(focusOf(units, queryTerms(undefined))).toBe(0);
  });
});

describe('fitMemories', () => {
  const para = (n: number) => Array.from({ length: n }, (_, i) => `paragraph ${i}`);

  it('keeps memories whole in rank order, then cuts the first that does not fit around its focus', () => {
    const terms = queryTerms('tulips');
    const big = memory('big', [...para(5), 'the tulips', ...para(5)]);
    const { kept, omitted, tokens } = fitMemories([memory('a', para(3)), big], 8, cost, terms);
    expect(kept.map((k) => [k.memory.id, k.shown[0], k.shown.at(-1)])).toEqual([
      ['a', 0, 2],
      ['big', 4, 6],
    ]);
    expect(omitted).toEqual([]);
    expect(tokens).toBe(8);
  });

  it('leaves out a memory whose focus alone does not fit and still tries the next, smaller one', () => {
    const { kept, omitted } = fitMemories(
      [memory('a', para(2)), memory('b', ['x']), memory('c', ['y'])],
      4,
      (k) => (k.memory.id === 'b' ? 99 : cost(k)),
      new Set(),
    );
    expect(kept.map((k) => k.memory.id)).toEqual(['a']);
    expect(omitted.map((m) => m.id)).toEqual(['b', 'c']);
    const roomy = fitMemories([memory('a', para(2)), memory('b', ['x']), memory('c', ['y'])], 6, (k) => (k.memory.id === 'b' ? 99 : cost(k)), new Set());
    expect(roomy.kept.map((k) => k.memory.id)).toEqual(['a', 'c']);
  });
});
