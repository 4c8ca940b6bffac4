// A day log's body as git merges it: the text before its first entry, then its entries (one "## " section each, as
// ingest and capture append them), and the three-way union of two sides' entries. Pure.
import { lineMerge } from './lines.js';

export interface LogBody {
  preamble: string;
  entries: string[];
}

const FENCE = /^\s{0,3}(```|~~~)/;

/** Splits a body at each level-2 heading outside a fenced block (a message's own `#` lines are escaped by the log). */
export function splitLog(body: string): LogBody {
  const lines = body.split('\n');
  const parts: string[][] = [[]];
  let fence: string | undefined;
  for (const line of lines) {
    const f = FENCE.exec(line);
    if (f) fence = fence === undefined ? f[1] : f[1] === fence ? undefined : fence;
    else if (fence === undefined && /^## /.test(line)) parts.push([]);
    parts[parts.length - 1]!.push(line);
  }
  const [first, ...rest] = parts.map((p) => p.join('\n').trim());
  return { preamble: first ?? '', entries: rest };
}

/** The body again, laid out as the log writes it: a blank line between parts, one newline at the end. */
export function joinLog(log: LogBody): string {
  return `${[log.preamble, ...log.entries].filter(Boolean).join('\n\n')}\n`;
}

/** What makes an entry the same one on both sides: its transcript's fingerprint when it has one, else its text. */
export function entryKey(entry: string): string {
  const print = /sha256 ([0-9a-f]{8,64})/.exec(entry);
  return print ? `sha256:${print[1]}` : `text:${entry}`;
}

/** The time its heading names ("## Session 2026-12-01 09:30 UTC ..."), sortable as text; undefined without one. */
export function entryTime(entry: string): string | undefined {
  const heading = entry.split('\n', 1)[0] ?? '';
  const m = /(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2})?)/.exec(heading);
  return m ? `${m[1]} ${m[2]}` : undefined;
}

function byKey(entries: string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const e of entries) if (!map.has(entryKey(e))) map.set(entryKey(e), e);
  return map;
}

/**
 * The entries of both sides, each once: one side's new entries join the other's; an entry one side changed and the
 * other kept takes the change; one both changed apart is kept twice (nothing lost); one a side deleted and the other
 * kept unchanged stays deleted (a person removed it on purpose). `first` is the side whose order leads when some
 * entry has no time; when all have one, they are in time order (ties by text), whichever side is first.
 */
export function unionEntries(base: string[], first: string[], second: string[]): string[] {
  const [o, a, b] = [byKey(base), byKey(first), byKey(second)];
  const out: string[] = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    const [ta, tb, to] = [a.get(key), b.get(key), o.get(key)];
    if (ta !== undefined && tb !== undefined) {
      if (ta === tb || tb === to) out.push(ta);
      else if (ta === to) out.push(tb);
      else out.push(ta, tb);
      continue;
    }
    const only = (ta ?? tb)!;
    // Deleted on one side: gone if the other kept it as it was, kept if the other changed it.
    if (to === undefined || only !== to) out.push(only);
  }
  if (out.every((e) => entryTime(e) !== undefined)) {
    return out.sort((x, y) => entryTime(x)!.localeCompare(entryTime(y)!) || (x < y ? -1 : x > y ? 1 : 0));
  }
  return out;
}

/** The text before the first entry: a one-sided change is taken, two changes are united line by line, else both kept. */
export function mergePreamble(base: string, first: string, second: string): string {
  if (first === second || second === base) return first;
  if (first === base) return second;
  const merged = lineMerge(base, first, second);
  if (merged !== undefined) return merged;
  const seen = new Set(first.split('\n'));
  return [first, ...second.split('\n').filter((l) => !seen.has(l))].join('\n');
}
