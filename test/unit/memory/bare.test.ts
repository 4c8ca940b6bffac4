// The bare text a second dense model reads: the unit without its heading path and Markdown emphasis.
import { describe, expect, it } from 'vitest';

import { bareTextOf } from '../../../src/memory/bare.js';
import { embedTextOf } from '../../../src/memory/chunk.js';

describe('bareTextOf', () => {
  it('drops the heading path the embedding text starts with', () => {
    const content = embedTextOf({ heading: 'Trip to Lisbon > Day 2', text: 'We took the tram to Belém.', lineStart: 5, lineEnd: 5 });
    expect(bareTextOf(content, 'Trip to Lisbon > Day 2')).toBe('We took the tram to Belém.');
  });

  it('reads a `mem ingest` turn as `Name: text`, without the clock time or the emphasis', () => {
    const content = 'Conversations on 2023-01-09 > Session 2023-01-09 19:06 UTC · s.json\n\n**Maria** (19:06): I *love* __helping__ others.';
    expect(bareTextOf(content, 'Conversations on 2023-01-09 > Session 2023-01-09 19:06 UTC · s.json')).toBe('Maria: I love helping others.');
  });

  it('keeps a time that is not a turn line, snake_case words and arithmetic', () => {
    expect(bareTextOf('Meet at (10:30): room_b, 2 * 3 seats', '')).toBe('Meet at (10:30): room_b, 2 * 3 seats');
  });

  it('a heading unit reads as its title, without the hashes', () => {
    expect(bareTextOf('## Session 2023-01-09 19:06 UTC', 'Conversations > Session 2023-01-09 19:06 UTC')).toBe('Session 2023-01-09 19:06 UTC');
  });

  it('the first unit of a section loses its heading line, as the others lose the heading path', () => {
    expect(bareTextOf('# 2026-11-30\n\n- Bob asked where the spare key is', '2026-11-30')).toBe('- Bob asked where the spare key is');
  });

  it('a text that does not start with its heading path is kept whole', () => {
    expect(bareTextOf('A fact on its own.', 'Facts')).toBe('A fact on its own.');
  });
});
