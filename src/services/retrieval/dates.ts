// Date signal: a date or relative time in the query ("in May 2023", "last week", "yesterday", "on 8
// May") is resolved against the search time, and candidates whose own dates fall in that period
// (a date in the file name, as day logs have; a date in the section heading, as ingested sessions
// have; the memory's `created`) gain a share of relevance. A signal, never a filter: a query's date
// may be about the event, not the day it was written down. Pure and monotone.
// English only: the whole package loads every locale's patterns, several times slower to start.
import * as chrono from 'chrono-node/en';

import type { FusedCandidate } from './fuse.js';

/** The share measured on the LoCoMo dev split (+0.016 / +0.008 turn R@10), on by default. */
export const DATE_SHARE = 0.2;
export const DEFAULT_DATE_SHARE = DATE_SHARE;

/** A period in epoch milliseconds, [start, end). */
export interface Period {
  start: number;
  end: number;
}

const DAY = 86_400_000;
// "now" is the search time itself, not a period a memory could be dated in.
const NOT_A_PERIOD = /^(right )?now$/i;
// chrono reads a bare year only with a day or month; "in 2022", "during 2021" are common enough to read here.
const BARE_YEAR = /\b(?:in|during|since|of|from)\s+((?:19|20)\d{2})\b/gi;

// The words a date or relative time needs; a query without any is not parsed at all (parsing costs
// milliseconds, its first call in a process far more).
const MAY_NAME_A_DATE =
  /\d|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|\b(?:mon|tue|wed|thu|fri|sat|sun)|\b(?:yesterday|today|tonight|tomorrow|week|weekend|fortnight|month|year|ago|last|next)\b/i;

const utcDay = (d: Date) => Date.UTC(d.getFullYear(), d.getMonth(), d.getDate());

/** The periods a query names, widened to the precision it names them at (day, week, month, year). */
export function queryPeriods(query: string, at: Date): Period[] {
  const periods: Period[] = [];
  if (!MAY_NAME_A_DATE.test(query)) return periods;
  for (const r of chrono.parse(query, at)) {
    if (NOT_A_PERIOD.test(r.text.trim())) continue;
    const s = r.start;
    // Only a time of day ("at 5pm") names no day to match.
    if (!s.isCertain('day') && !s.isCertain('weekday') && !s.isCertain('month') && !s.isCertain('year')) continue;
    const date = s.date();
    const year = date.getFullYear();
    let period: Period;
    if (/week/i.test(r.text)) {
      const day = utcDay(date);
      period = { start: day - 3 * DAY, end: day + 4 * DAY };
    } else if (s.isCertain('day') || s.isCertain('weekday')) {
      // A day's memories may be stamped in another time zone: one day either side.
      const day = utcDay(date);
      period = { start: day - DAY, end: day + 2 * DAY };
    } else if (s.isCertain('month')) {
      period = { start: Date.UTC(year, date.getMonth(), 1), end: Date.UTC(year, date.getMonth() + 1, 1) };
    } else {
      period = { start: Date.UTC(year, 0, 1), end: Date.UTC(year + 1, 0, 1) };
    }
    if (r.end) period.end = Math.max(period.end, utcDay(r.end.date()) + 2 * DAY);
    periods.push(period);
  }
  for (const m of query.matchAll(BARE_YEAR)) {
    const year = Number(m[1]);
    if (!periods.some((p) => p.start <= Date.UTC(year, 6, 1) && Date.UTC(year, 6, 1) < p.end)) {
      periods.push({ start: Date.UTC(year, 0, 1), end: Date.UTC(year + 1, 0, 1) });
    }
  }
  return periods;
}

const ISO_DAY = /\b((?:19|20)\d{2})-(\d{2})-(\d{2})\b/g;

/** The dates a chunk carries: ISO days in its file name and section heading, and its memory's creation time. */
export function chunkDates(record: { path: string; heading: string; created: number }): number[] {
  const dates = [record.created];
  const name = record.path.split('/').pop() ?? '';
  for (const text of [name, record.heading]) {
    for (const m of text.matchAll(ISO_DAY)) {
      const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
      if (Number.isFinite(t)) dates.push(t);
    }
  }
  return dates;
}

/**
 * New relevance in [0, 1]: (own + share·[a date of the chunk lies in a period the query names]) /
 * (1 + share), the query's periods read by queryPeriods beforehand (a search reads them while it waits for the
 * index). A query that names no period, or share 0, changes nothing.
 */
export function withPeriods(candidates: FusedCandidate[], periods: Period[], share: number): FusedCandidate[] {
  if (share <= 0 || periods.length === 0) return candidates;
  const inPeriod = (t: number) => periods.some((p) => p.start <= t && t < p.end);
  return candidates
    .map((c) => {
      const matched = chunkDates(c.hit.record).some(inPeriod) ? 1 : 0;
      return { ...c, relevance: (c.relevance + share * matched) / (1 + share) };
    })
    .sort((a, b) => b.relevance - a.relevance);
}
