// The MCP-answer figures of the LoCoMo benchmark: evidence turns inside `memory_search`'s text, and that text's tokens.
import { describe, expect, it } from 'vitest';

import { mcpAnswer, mcpFigures } from '../../../../bench/locomo/mcp-answer.js';
import { estimateTokens } from '../../../../src/services/retrieval/context.js';
import { searchText } from '../../../../src/services/retrieval/tool-text.js';
import { searchResult } from '../../../support/search-result.js';

const TURNS = new Map([
  ['c/D1:1', 'I adopted a cat   named Miso!'],
  ['c/D1:2', 'Lovely. What colour is she?'],
  ['c/D2:1', 'She is grey, with one white paw.'],
]);
const textOf = (t: string) => TURNS.get(t);
const hit = (id: string, content: string) => searchResult(content, { id, path: `c/episodic/${id}.md`, user: 'c' });

describe('LoCoMo MCP-answer figures', () => {
  it('a turn is inside when its whole text is in the answer (line breaks as spaces), not when cut; tokens as the block counts them', () => {
    const results = [hit('a', '**Ann** (13:56): I adopted a cat named\nMiso!\n**Bo**: Lovely. What colour')];
    const answer = mcpAnswer('c', 'the cat', results, ['c/D1:1', 'c/D1:2', 'c/D9:9'], textOf);
    expect(answer.turns).toEqual(['c/D1:1']);
    expect(answer.tokens).toBe(estimateTokens(searchText('c', results, 'the cat')));
    expect(answer.tokens).toBeGreaterThan(estimateTokens(results[0]!.content));
  });

  it('no result: no turn inside, the empty answer still costs its notice', () => {
    const answer = mcpAnswer('c', 'the cat', [], ['c/D1:1'], textOf);
    expect(answer.turns).toEqual([]);
    expect(answer.tokens).toBe(estimateTokens(searchText('c', [], 'the cat')));
  });

  it('averages turn and session shares and tokens over questions with evidence', () => {
    const figures = mcpFigures([
      { evidence: ['c/D1:1', 'c/D2:1'], turns: ['c/D1:1'], tokens: 300 },
      { evidence: ['c/D1:2'], turns: ['c/D1:2'], tokens: 500 },
      { evidence: [], turns: [], tokens: 900 },
    ]);
    // Turns: (1/2 + 1) / 2; sessions: (1/2 + 1) / 2 (the first question's evidence spans two sessions).
    expect(figures).toEqual({ turns: 0.75, sessions: 0.75, tokens: 400 });
  });
});
