// Splits a memory body into the rows search ranks — its fine units: a paragraph, a list item, a dialogue
// turn, a code fence (a section's heading goes with its first unit; a unit over the size cap is split like
// a chunk) — and the context windows over them: a few neighbouring units of one section, stride 1, rows
// that only lend their relevance to the units they contain and are never returned themselves. Pure.
import { chunkMarkdown, splitBlock, toSections, type Block, type ChunkOptions, type Section } from './chunk.js';
import type { Chunk } from './model.js';

/** Units per window: measured on the LoCoMo dev split against 'chunks' and none. */
export const DEFAULT_WINDOW = 3;

export interface UnitsAndWindows {
  units: Chunk[];
  /** Empty for a section of one unit (an atomic fact from `mem add`): it is its own context. */
  windows: Chunk[];
}

function sectionUnits(body: string, section: Section, maxChars: number): Block[] {
  const out: Block[] = [];
  let heading: Block | null = null;
  for (const block of section.blocks) {
    if (block.heading) {
      heading = block;
      continue;
    }
    for (const part of block.items?.length ? block.items : [block]) {
      for (const piece of part.end - part.start > maxChars ? splitBlock(body, part, maxChars) : [part]) {
        // The heading joins the first unit, as it did the first chunk (a one-paragraph section keeps its chunk, id and vector).
        if (heading && piece.end - heading.start <= maxChars) out.push({ ...piece, start: heading.start, line: heading.line });
        else out.push(...(heading ? [heading] : []), piece);
        heading = null;
      }
    }
  }
  if (heading) out.push(heading);
  return out;
}

/**
 * Up to `size` neighbouring units from each unit on (stride 1), as many as fit in maxChars: units that
 * long carry their own context (and the model reads only the start of a longer text). A window inside
 * the previous one adds nothing and is left out.
 */
function slidingWindows(units: Block[], size: number, maxChars: number): Block[] {
  const out: Block[] = [];
  let lastEnd = -1;
  for (let i = 0; i < units.length; i++) {
    let j = i;
    while (j + 1 < units.length && j + 1 - i < size && units[j + 1]!.end - units[i]!.start <= maxChars) j++;
    if (j === i || j <= lastEnd) continue;
    out.push({ start: units[i]!.start, end: units[j]!.end, line: units[i]!.line, endLine: units[j]!.endLine });
    lastEnd = j;
  }
  return out;
}

export function unitsAndWindows(body: string, bodyStartLine: number, options: ChunkOptions): UnitsAndWindows {
  const size = options.window ?? DEFAULT_WINDOW;
  const toChunk = (heading: string, b: Block): Chunk | null => {
    const text = body.slice(b.start, b.end).trim();
    return text ? { heading, text, lineStart: b.line + bodyStartLine - 1, lineEnd: b.endLine + bodyStartLine - 1 } : null;
  };
  const units: Chunk[] = [];
  const windows: Chunk[] = [];
  for (const section of toSections(body)) {
    const blocks = sectionUnits(body, section, options.maxChars);
    units.push(...blocks.map((b) => toChunk(section.heading, b)).filter((c): c is Chunk => c !== null));
    if (typeof size === 'number') windows.push(...slidingWindows(blocks, size, options.maxChars).map((b) => toChunk(section.heading, b)!));
  }
  if (size === 'chunks') {
    // The ~maxChars chunks that stand for two units or more (one that holds a single unit adds nothing).
    // Both lists are in file order: one pass.
    let first = 0;
    for (const c of chunkMarkdown(body, bodyStartLine, { maxChars: options.maxChars })) {
      while (first < units.length && units[first]!.lineStart < c.lineStart) first++;
      let n = 0;
      while (first + n < units.length && units[first + n]!.lineEnd <= c.lineEnd) n++;
      if (n >= 2) windows.push(c);
    }
  }
  return { units, windows };
}
