// The text a memory-level result shows: its best unit grown with the neighbouring units of its section, up to
// about a chunk's size, so a short memory reads whole (a summary keeps its Sources line) and a log keeps its context.
import type { IndexHit } from '../ports.js';

type Row = IndexHit['record'];

export interface Excerpt {
  content: string;
  lines: [number, number];
}

/** A unit's own text: its content without the heading path the index prefixes for context. */
export function ownText(row: Row): string {
  const prefix = row.heading ? `${row.heading}\n\n` : '';
  return prefix && row.content.startsWith(prefix) ? row.content.slice(prefix.length) : row.content;
}

/**
 * Grows `best` with the adjacent units of the same file and heading (from `rows`, any order), one on each side
 * in turn, while the excerpt stays within `maxChars`. Never shorter than the unit itself.
 */
export function excerptOf(best: Row, rows: Row[], maxChars: number): Excerpt {
  const section = rows
    .filter((r) => r.path === best.path && r.heading === best.heading && r.kind !== 'window')
    .sort((a, b) => a.lineStart - b.lineStart)
    .filter((r, i, all) => i === 0 || r.lineStart > all[i - 1]!.lineEnd);
  const at = section.findIndex((r) => r.lineStart === best.lineStart && r.lineEnd === best.lineEnd);
  if (at < 0) return { content: best.content, lines: [best.lineStart, best.lineEnd] };
  let from = at;
  let to = at;
  let size = ownText(best).length;
  for (let grew = true; grew;) {
    grew = false;
    const next = section[to + 1];
    if (next && size + 2 + ownText(next).length <= maxChars) {
      to++;
      size += 2 + ownText(next).length;
      grew = true;
    }
    const prev = section[from - 1];
    if (prev && size + 2 + ownText(prev).length <= maxChars) {
      from--;
      size += 2 + ownText(prev).length;
      grew = true;
    }
  }
  const parts = section.slice(from, to + 1);
  if (parts.length === 1) return { content: best.content, lines: [best.lineStart, best.lineEnd] };
  const body = parts.map(ownText).join('\n\n');
  const first = section[from]!;
  const headed = first.content.startsWith(`${first.heading}\n\n`) ? `${first.heading}\n\n${body}` : body;
  return { content: headed, lines: [first.lineStart, parts[parts.length - 1]!.lineEnd] };
}
