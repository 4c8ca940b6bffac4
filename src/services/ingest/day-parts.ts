// A long day in several files: the sessions of one day go to `<day>.md` until it would pass the file size limit
// (which the index skips), then to `<day>-2.md`, `<day>-3.md`… A session too large for the room left is split
// into sections that each fit, and a single turn too large for any file into pieces. Pure.
import type { Turn } from './transcript.js';

/** Bytes kept free beside the measured section: the front matter's fields change as the file is written. */
export const PART_SLACK = 1024;

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** Text cut into pieces of at most maxBytes (UTF-8), at line ends where it can, never inside a character. */
export function splitText(text: string, maxBytes: number): string[] {
  const pieces: string[] = [];
  let current = '';
  const flush = () => {
    if (current) pieces.push(current);
    current = '';
  };
  for (const line of text.split(/(?<=\n)/)) {
    if (bytes(current) + bytes(line) <= maxBytes) {
      current += line;
      continue;
    }
    flush();
    if (bytes(line) <= maxBytes) {
      current = line;
      continue;
    }
    for (const ch of line) {
      if (bytes(current) + bytes(ch) > maxBytes) flush();
      current += ch;
    }
  }
  flush();
  return pieces;
}

/**
 * The turns in groups, each rendered (by `size`) within its room: the first group within `firstRoom` (what is
 * left in the day's last file; it may be empty when nothing fits there), every later one within `room`.
 */
export function splitSession(turns: Turn[], size: (turns: Turn[]) => number, firstRoom: number, room: number): Turn[][] {
  const empty = size([]);
  // Two bytes more per turn: the blank line that joins it to the one before.
  const weight = (t: Turn) => size([t]) - empty + 2;
  // A turn that fits no file alone is cut into pieces, halved until each fits.
  const pieces: { turn: Turn; weight: number }[] = [];
  const queue = [...turns];
  while (queue.length > 0) {
    const turn = queue.shift()!;
    const w = weight(turn);
    if (empty + w <= room || turn.content.length <= 1) {
      pieces.push({ turn, weight: w });
      continue;
    }
    const parts = splitText(turn.content, Math.max(1, Math.floor(bytes(turn.content) / 2)));
    queue.unshift(...parts.map((content) => ({ ...turn, content })));
  }
  const groups: Turn[][] = [[]];
  let used = empty;
  let limit = firstRoom;
  for (const p of pieces) {
    if (used + p.weight > limit && (groups.at(-1)!.length > 0 || limit < room)) {
      groups.push([]);
      used = empty;
      limit = room;
    }
    groups.at(-1)!.push(p.turn);
    used += p.weight;
  }
  return groups;
}
