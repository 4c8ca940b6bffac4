// Turns of an ingested conversation in a context block: a time said once while it does not change.
import { describe, expect, it } from 'vitest';

import { compactTurn, headingTime, sessionHeading } from '../../../../src/services/retrieval/context-turns.js';

describe('compactTurn', () => {
  it('drops the bold and a time already shown, keeps a new time and the words as written', () => {
    const start = headingTime('Session 2023-05-08 13:56 UTC · session-01.json');
    expect(start).toBe('13:56');
    const first = compactTurn('**Ann** (13:56): I adopted a **cat**!', start);
    expect(first).toEqual({ text: 'Ann: I adopted a **cat**!', time: '13:56' });
    expect(compactTurn('**Bob** (14:02): Lovely.', first.time)).toEqual({ text: 'Bob (14:02): Lovely.', time: '14:02' });
    expect(compactTurn('**Bob**: No time here.', '14:02')).toEqual({ text: 'Bob: No time here.', time: '14:02' });
  });

  it('leaves any other paragraph as it is', () => {
    expect(compactTurn('**Note** this is bold prose.', '10:00')).toEqual({ text: '**Note** this is bold prose.', time: '10:00' });
    expect(headingTime('Setup > Linux')).toBeUndefined();
  });
});

describe('sessionHeading', () => {
  it("leaves out the date a memory's header already says, and leaves other headings as they are", () => {
    expect(sessionHeading('Session 2023-05-08 13:56 UTC · session-01.json', '2023-05-08')).toBe('Session 13:56 UTC · session-01.json');
    expect(sessionHeading('Session 2023-05-09 00:10 UTC · session-02.json', '2023-05-08')).toBe('Session 2023-05-09 00:10 UTC · session-02.json');
    expect(sessionHeading('Setup 2023-05-08 notes', '2023-05-08')).toBe('Setup 2023-05-08 notes');
  });
});
