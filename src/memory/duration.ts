// Durations written by people ("90d", "12h", "2w", "none") for TTLs and grace periods.
import { createRequire } from 'node:module';

import type msFunction from 'ms';

import { UsageError } from '../errors.js';

// Required on the first duration read, not imported: every `mem` process reads its configuration through this
// module, and loading a CommonJS package from an ES module cost a plain `mem search` ~3-6 ms while no duration is set.
let ms: typeof msFunction | undefined;
const loadMs = () => (ms ??= createRequire(import.meta.url)('ms') as typeof msFunction);

// Longer than this is not a lifetime but a typo (and far enough past it, dates stop existing).
const MAX_DURATION_MS = 1000 * 365.25 * 24 * 3_600_000;

/** Milliseconds, or null for "none" / "never" (no expiry). Throws UsageError naming `what` on anything else. */
export function parseDuration(value: string, what: string): number | null {
  const text = value.trim().toLowerCase();
  if (text === 'none' || text === 'never' || text === '0') return null;
  // ms() reads a bare number as milliseconds; a TTL of "90" almost certainly meant days, so insist on a unit.
  const parsed = /^\d+(\.\d+)?\s*[a-z]+$/.test(text) ? loadMs()(text as msFunction.StringValue) : undefined;
  if (typeof parsed !== 'number' || !Number.isFinite(parsed) || parsed <= 0) {
    throw new UsageError(`${what} must be a duration such as 12h, 7d, 2w or none, got ${JSON.stringify(value)}`);
  }
  if (parsed > MAX_DURATION_MS) throw new UsageError(`${what} must be at most 1000 years (use none for no limit), got ${JSON.stringify(value)}`);
  return parsed;
}
