// Dates and times written by people (front matter, --expires), read strictly: a day that does not
// exist is an error, never rolled over into the next month, and no other format is guessed at.

/** Years memdir accepts: four digits, none before 1000 (YAML would read year 0000 as 1900). */
export const MIN_YEAR = 1000;
export const MAX_YEAR = 9999;

// ISO 8601 as people and YAML write it: a date, optionally a time (T or a space), optionally a zone.
const ISO = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[Tt ]+(\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?[ \t]*(Z|z|[+-]\d{1,2}(?::?\d{2})?)?)?$/;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function daysIn(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

/** The instant a written date means (a date alone, or a time without a zone, is UTC), or why it is not one. */
export function parseStrictDate(text: string): { date: Date } | { error: string } {
  const m = ISO.exec(text.trim());
  if (!m) return { error: `not an ISO 8601 date or time such as 2026-12-01 or 2026-12-01T09:30:00Z: ${JSON.stringify(text)}` };
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  if (year < MIN_YEAR || year > MAX_YEAR) return { error: `year ${m[1]} is out of range (${MIN_YEAR}–${MAX_YEAR}): ${JSON.stringify(text)}` };
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return { error: `no such day: ${JSON.stringify(text)}` };
  if (hour > 23 || minute > 59 || second > 59) return { error: `no such time of day: ${JSON.stringify(text)}` };
  let zone = m[8] ?? 'Z';
  if (zone !== 'Z' && zone !== 'z') {
    const z = /^([+-])(\d{1,2}):?(\d{2})?$/.exec(zone)!;
    if (Number(z[2]) > 14 || Number(z[3] ?? 0) > 59) return { error: `no such time zone offset: ${JSON.stringify(text)}` };
    zone = `${z[1]}${pad(Number(z[2]))}:${z[3] ?? '00'}`;
  }
  const iso = `${m[1]}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(second)}${(m[7] ?? '').slice(0, 4)}${zone.toUpperCase()}`;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return { error: `not a date: ${JSON.stringify(text)}` };
  return { date };
}
