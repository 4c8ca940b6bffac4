// A turn is known by its content or by its message id: either surviving a resume is enough, and neither key holds text.
import { describe, expect, it } from 'vitest';

import { turnKeys, unknownTurns } from '../../../../src/services/capture/turn-identity.js';

const turn = { role: 'user', content: 'the secret-ish plan', time: '2026-12-02T10:00:00.000Z' };

describe('turn identity', () => {
  it('keys are hashes of the content and of the message id, never the text', () => {
    const keys = turnKeys({ turn, uuid: 'u-1' });
    expect(keys).toHaveLength(2);
    for (const k of keys) expect(k).toMatch(/^[0-9a-f]{32}$/);
    expect(turnKeys({ turn })).toEqual([keys[0]]);
  });

  it('a turn known by either key is dropped; one repeated within the batch is kept once', () => {
    const [byContent, byId] = turnKeys({ turn, uuid: 'u-1' });
    const moved = { turn: { ...turn, time: '2026-12-09T10:00:00.000Z' }, uuid: 'u-1' };
    expect(unknownTurns([moved], new Set([byId!]))).toEqual([]);
    expect(unknownTurns([{ turn, uuid: 'other' }], new Set([byContent!]))).toEqual([]);
    const fresh = unknownTurns([{ turn }, { turn }, { turn: { ...turn, content: 'next' } }], new Set());
    expect(fresh.map((t) => t.turn.content)).toEqual(['the secret-ish plan', 'next']);
  });
});
