// The context-block figures of the LoCoMo benchmark: an evidence turn counts when its whole text is in the block.
import { describe, expect, it } from 'vitest';

import { budgetFigures, turnsInside } from '../../../../bench/locomo/budget.js';
import { formatContext } from '../../../../src/services/retrieval/context.js';

const TURNS = new Map([
  ['c/D1:1', 'I adopted a cat   named Miso!'],
  ['c/D1:2', 'Lovely. What colour is she?'],
  ['c/D2:1', 'She is grey, with one white paw.'],
]);
const item = (id: string, content: string) => ({ id, type: 'episodic' as const, created: '2023-05-08T00:00:00Z', content });

describe('LoCoMo context-block figures', () => {
  it('a turn is inside when its whole text is in the block (whitespace as the block shows it), not when cut', () => {
    const block = formatContext([item('a', '**Ann** (13:56): I adopted a cat named\nMiso!'), item('b', 'Lovely. What colour')], 'c', 1200).text;
    expect(turnsInside(block, ['c/D1:1', 'c/D1:2', 'c/D9:9'], (t) => TURNS.get(t))).toEqual(['c/D1:1']);
  });

  it('a memory the budget leaves out takes its turns with it', () => {
    const long = item('b', `${'filler words '.repeat(200)} She is grey, with one white paw.`);
    const small = formatContext([item('a', 'I adopted a cat named Miso!'), long], 'c', 500);
    expect(small.omitted).toEqual(['b']);
    expect(turnsInside(small.text, ['c/D1:1', 'c/D2:1'], (t) => TURNS.get(t))).toEqual(['c/D1:1']);
  });

  it('averages turn and session shares and tokens over questions, per budget', () => {
    const inside = (turns: string[], tokens: number) => ({ 500: { turns: [], tokens: 100 }, 1200: { turns, tokens }, 2000: { turns, tokens } });
    const figures = budgetFigures([
      { evidence: ['c/D1:1', 'c/D2:1'], inside: inside(['c/D1:1'], 300) },
      { evidence: ['c/D1:2'], inside: inside(['c/D1:2'], 500) },
    ]);
    expect(figures['500']).toEqual({ turn: 0, session: 0, tokens: 100 });
    // Turns: (1/2 + 1) / 2; sessions: (1/2 + 1) / 2 (the first question's evidence spans two sessions).
    expect(figures['1200']).toEqual({ turn: 0.75, session: 0.75, tokens: 400 });
  });

  it('measures the budgets asked for instead, when given', () => {
    const figures = budgetFigures(
      [{ evidence: ['c/D1:1'], inside: { 1180: { turns: [], tokens: 1100 }, 1220: { turns: ['c/D1:1'], tokens: 1200 } } }],
      [1180, 1220],
    );
    expect(Object.keys(figures)).toEqual(['1180', '1220']);
    expect(figures['1220']).toEqual({ turn: 1, session: 1, tokens: 1200 });
  });
});
