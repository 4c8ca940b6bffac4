// Covers a hook's time budget: the work's result in time, TIMEOUT after it, and no timer for an unlimited budget.
import { describe, expect, it } from 'vitest';

import { TIMEOUT, within } from '../../../../src/services/capture/within.js';

describe('within', () => {
  it('returns the work in time and TIMEOUT once the budget is spent', async () => {
    expect(await within(1000, Promise.resolve(3))).toBe(3);
    expect(await within(10, new Promise(() => undefined))).toBe(TIMEOUT);
    expect(await within(-5, new Promise(() => undefined))).toBe(TIMEOUT);
  });

  it('waits for the work itself when the budget is unlimited', async () => {
    const work = Promise.resolve('done');
    expect(within(Number.POSITIVE_INFINITY, work)).toBe(work);
  });
});
