// Covers strict date reading: ISO forms people and YAML write are read as UTC instants; impossible days,
// years YAML would misread and anything that is not ISO 8601 are errors, never rolled over or guessed.
import { describe, expect, it } from 'vitest';

import { parseStrictDate } from '../../../src/memory/dates.js';

const iso = (text: string) => {
  const r = parseStrictDate(text);
  return 'date' in r ? r.date.toISOString() : r.error;
};

describe('parseStrictDate', () => {
  it('reads dates and times, a missing zone as UTC', () => {
    expect(iso('2026-12-01')).toBe('2026-12-01T00:00:00.000Z');
    expect(iso('2028-02-29')).toBe('2028-02-29T00:00:00.000Z');
    expect(iso('2026-12-01T09:30')).toBe('2026-12-01T09:30:00.000Z');
    expect(iso('2026-12-01 09:30:15.25 +01:00')).toBe('2026-12-01T08:30:15.250Z');
    expect(iso('2026-1-5T9:00:00+0530')).toBe('2026-01-05T03:30:00.000Z');
  });

  it('refuses days and times that do not exist, and years outside 1000–9999', () => {
    expect(iso('2026-02-29')).toMatch(/^no such day/);
    expect(iso('2026-02-30')).toMatch(/^no such day/);
    expect(iso('2026-13-01')).toMatch(/^no such day/);
    expect(iso('2026-12-01T24:00')).toMatch(/^no such time of day/);
    expect(iso('2026-12-01T10:00+15:00')).toMatch(/^no such time zone offset/);
    expect(iso('0000-01-01')).toMatch(/^year 0000 is out of range/);
  });

  it('guesses at nothing else', () => {
    for (const text of ['5', '2026', 'tomorrow', 'December 1, 2026', '01/12/2026', '+275760-09-13', '']) {
      expect(iso(text)).toMatch(/^not an ISO 8601 date/);
    }
  });
});
