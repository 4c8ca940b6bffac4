// The work a search does while it waits for the index: `later` runs after the current turn and hands a failure to the
// caller that awaits it; `readAhead` reads each file once, in order, one per turn, and stops when the search has its answers.
import { describe, expect, it } from 'vitest';

import type { IndexHit } from '../../../../src/services/ports.js';
import { later, readAhead } from '../../../../src/services/retrieval/while-waiting.js';

const row = (path: string, chunkId = `${path}#1`) => ({ path, chunkId }) as IndexHit['record'];
const turn = () => new Promise((r) => setImmediate(r));

describe('later', () => {
  it('runs the work after the current turn, not at once', async () => {
    const order: string[] = [];
    const result = later(() => (order.push('work'), 42));
    order.push('caller');
    expect(await result).toBe(42);
    expect(order).toEqual(['caller', 'work']);
  });

  it("makes a failure the awaiting caller's, not an unhandled rejection", async () => {
    const result = later(() => {
      throw new Error('no dates today');
    });
    // Awaited only after it failed: without the mark, Node would have reported it unhandled meanwhile.
    await turn();
    await turn();
    await expect(result).rejects.toThrow('no dates today');
  });
});

describe('readAhead', () => {
  it('reads each file once, in order, one file per turn of the event loop', async () => {
    const read: string[] = [];
    const perTurn: number[] = [];
    readAhead(
      async (r) => {
        read.push(r.path);
        return [];
      },
      [row('a.md'), row('b.md'), row('a.md', 'a.md#2'), row('c.md')],
      () => false,
    );
    expect(read).toEqual([]); // nothing before the caller's turn ends
    for (let i = 0; i < 8; i++) {
      await turn();
      perTurn.push(read.length);
    }
    expect(read).toEqual(['a.md', 'b.md', 'c.md']);
    // Never two files in one turn.
    expect(perTurn.every((n, i) => n - (perTurn[i - 1] ?? 0) <= 1)).toBe(true);
  });

  it('stops once the search has its answers, and goes on past a file that cannot be read', async () => {
    const read: string[] = [];
    let done = false;
    readAhead(
      async (r) => {
        read.push(r.path);
        if (r.path === 'a.md') throw new Error('gone');
        if (r.path === 'b.md') done = true;
        return null;
      },
      [row('a.md'), row('b.md'), row('c.md')],
      () => done,
    );
    for (let i = 0; i < 10; i++) await turn();
    expect(read).toEqual(['a.md', 'b.md']);
  });
});
