// Durations written by people ("90d", "12h", "2w", "none") for TTLs and grace periods.
import ms from 'ms';

import { UsageError } from '../errors.js';

/** Milliseconds, or null for "none" / "never" (no expiry). Throws UsageError naming `what` on anything else. */
export function parseDuration(value: string, what: string): number | null {
  const text = value.trim().toLowerCase();
  if (text === 'none' || text === 'never' || text === '0') return null;
  // ms() reads a bare number as milliseconds; a TTL of "90" almost certainly meant days, so insist on a unit.
  const parsed = /^\d+(\.\d+)?\s*[a-z]+$/.test(text) ? ms(text as ms.StringValue) : undefined;
  if (typeof parsed !== 'number' || !Number.isFinite(parsed) || parsed <= 0) {
    throw new UsageError(`${what} must be a duration such as 12h, 7d, 2w or none, got ${JSON.stringify(value)}`);
  }
  return parsed;
}
