// Covers parsing of human durations for TTLs and grace periods.
import { describe, expect, it } from 'vitest';

import { UsageError } from '../../../src/errors.js';
import { parseDuration } from '../../../src/memory/duration.js';

describe('parseDuration', () => {
  it('reads units and "none"', () => {
    expect(parseDuration('1d', 'ttl')).toBe(86_400_000);
    expect(parseDuration('12h', 'ttl')).toBe(43_200_000);
    expect(parseDuration('2w', 'ttl')).toBe(14 * 86_400_000);
    expect(parseDuration('none', 'ttl')).toBeNull();
  });

  it('refuses bare numbers and nonsense, naming the setting', () => {
    expect(() => parseDuration('90', 'MEM_TTL_EPISODIC')).toThrow(UsageError);
    expect(() => parseDuration('soon', 'ttl')).toThrow(/ttl must be a duration/);
    expect(() => parseDuration('-1d', 'ttl')).toThrow(UsageError);
  });
});
