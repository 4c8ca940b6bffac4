// Turns ranked search results into the memories a context block shows: one entry per memory, its passages
// merged (overlapping or adjacent excerpts read once), its text split into paragraphs with the noise of
// ingested logs and repeated heading paths left out. Pure.
import type { MemoryType } from '../../memory/model.js';

export interface ContextItem {
  id: string;
  type: MemoryType;
  created: string;
  content: string;
  /** The file, when known: excerpts of one file are one memory even if two files (wrongly) share an id. */
  path?: string;
  /** The excerpt's lines in its file: passages that overlap or touch are merged, the others kept apart by "…". */
  lines?: [number, number];
  /** The heading path the index prefixed to the excerpt ("Title > Section"), shown once per passage. */
  heading?: string;
  /** Shown when not active (a history search returns superseded or expired memories too). */
  status?: string;
  /** The units of the memory the search scored, best first: the block shows these (and what is around them) first. */
  hits?: { lines: [number, number]; heading: string; content: string; score: number }[];
}

/** One run of a memory's text: its heading (if any) and its paragraphs, each one line. */
export interface Passage {
  heading: string;
  paragraphs: string[];
  /** A gap in the file before this passage (not the memory's first passage). */
  gapBefore: boolean;
}

export interface ContextMemory {
  id: string;
  type: MemoryType;
  created: string;
  status?: string;
  /** The ids of the results merged into this memory, best first. */
  ids: string[];
  passages: Passage[];
  /** A paragraph's score when the search scored its unit (absent: no result said what it scored). */
  scores?: Map<string, number>;
}

// Provenance an ingested day log repeats in every section (its title, each session's source note): the
// memory's id and date already say where it is from.
const LOG_TITLE = /^#?\s*Conversations on \d{4}-\d{2}-\d{2}(?: \(part \d+\))?$/;
const LOG_NOTE = /^_Conversation from .*_$/;
const MARKDOWN_HEADING = /^#{1,6}\s+/;

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

// A line opening or closing fenced code (CommonMark: three or more backticks or tildes, indented at most 3 spaces).
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The body's paragraphs as lists of lines: split at blank lines, except inside fenced code (its blank lines are code). */
function blocksOf(body: string): string[][] {
  const blocks: string[][] = [];
  let current: string[] = [];
  let fence: string | undefined;
  for (const line of body.split('\n')) {
    const mark = FENCE.exec(line)?.[1];
    if (fence === undefined && !line.trim()) {
      if (current.length > 0) blocks.push(current);
      current = [];
      continue;
    }
    current.push(line);
    // A fence closes on a line of the same character, at least as long, and nothing after it.
    if (fence === undefined && mark) fence = mark;
    else if (fence !== undefined && mark && mark[0] === fence[0] && mark.length >= fence.length && !line.trim().slice(mark.length).trim()) fence = undefined;
  }
  if (current.length > 0) blocks.push(current);
  return blocks;
}

/** A heading path without the day log's title, which the memory's date already gives. */
function shortHeading(heading: string): string {
  return heading
    .split(' > ')
    .filter((part) => !LOG_TITLE.test(part.trim()))
    .join(' > ')
    .trim();
}

/** An excerpt's heading and paragraphs: the index's heading prefix taken off, a leading Markdown heading as the heading. */
export function passageOf(item: Pick<ContextItem, 'content' | 'heading'>): Omit<Passage, 'gapBefore'> {
  let body = item.content.replace(/\r\n?/g, '\n').trim();
  let heading = item.heading ?? '';
  if (heading && body.startsWith(`${heading}\n`)) body = body.slice(heading.length).trim();
  const paragraphs: string[] = [];
  for (const lines of blocksOf(body)) {
    // A section's own heading line opens its first unit: it is the passage's heading, said once.
    while (lines.length > 0 && MARKDOWN_HEADING.test(lines[0]!.trim()) && paragraphs.length === 0) {
      const own = lines.shift()!.trim().replace(MARKDOWN_HEADING, '');
      heading = LOG_TITLE.test(own) ? heading : own;
    }
    // Code reads by its lines and indentation: a paragraph holding a fence keeps its lines as written.
    const text = lines.some((l) => FENCE.test(l)) ? lines.map((l) => l.trimEnd()).join('\n') : oneLine(lines.join(' '));
    if (!text.trim() || LOG_TITLE.test(text) || LOG_NOTE.test(text)) continue;
    paragraphs.push(text);
  }
  return { heading: shortHeading(oneLine(heading)), paragraphs };
}

const keyOf = (item: ContextItem) => item.path ?? item.id;

const inside = (lines: [number, number], items: ContextItem[]) => items.some((i) => i.lines && i.lines[0] <= lines[0] && lines[1] <= i.lines[1]);

/** A memory's results and, as excerpts of their own, the scored units that none of its excerpts holds. */
function withHits(group: ContextItem[]): ContextItem[] {
  const outside = group.flatMap((i) => i.hits ?? []).filter((h, n, all) => !inside(h.lines, group) && all.findIndex((o) => o.lines[0] === h.lines[0]) === n);
  return [...group, ...outside.map(({ lines, heading, content }) => ({ ...group[0]!, lines, heading, content, hits: undefined }))];
}

/**
 * Each paragraph shown with the best score of the scored units it holds: a unit may be part of a paragraph (a list
 * item of a list the block shows as one line).
 */
function scoresOf(group: ContextItem[], passages: Passage[]): Map<string, number> {
  const hits = group.flatMap((i) => i.hits ?? []).flatMap((h) => passageOf({ content: h.content }).paragraphs.map((text) => ({ text, score: h.score })));
  const scores = new Map<string, number>();
  for (const paragraph of passages.flatMap((p) => p.paragraphs))
    for (const hit of hits) if (paragraph.includes(hit.text)) scores.set(paragraph, Math.max(scores.get(paragraph) ?? -Infinity, hit.score));
  return scores;
}

/**
 * The memories of `items` (ranked best first), in the rank of their best result; a memory's passages in file
 * order, a paragraph another passage of it already shows left out.
 */
export function contextMemories(items: ContextItem[]): ContextMemory[] {
  const groups = new Map<string, ContextItem[]>();
  for (const item of items) {
    const key = keyOf(item);
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return [...groups.values()].map((group) => {
    const best = group[0]!;
    const scored = withHits(group);
    const inFile = scored.every((i) => i.lines) ? [...scored].sort((a, b) => a.lines![0] - b.lines![0]) : scored;
    const seen = new Set<string>();
    const passages: Passage[] = [];
    let end = -Infinity;
    let lastHeading: string | undefined;
    for (const item of inFile) {
      const { heading, paragraphs } = passageOf(item);
      const fresh = paragraphs.filter((p) => !seen.has(p));
      fresh.forEach((p) => seen.add(p));
      // Lines that overlap or follow on (a blank line apart) continue the previous passage.
      const follows = passages.length > 0 && item.lines !== undefined && item.lines[0] <= end + 2;
      if (item.lines) end = Math.max(end, item.lines[1]);
      if (fresh.length === 0) continue;
      const last = passages[passages.length - 1];
      // A section of its own (another heading) that follows on is a passage of its own, with no gap before it.
      if (follows && last && heading === lastHeading) last.paragraphs.push(...fresh);
      else
        passages.push({ heading: passages.some((p) => p.heading === heading) ? '' : heading, paragraphs: fresh, gapBefore: passages.length > 0 && !follows });
      lastHeading = heading;
    }
    return {
      id: best.id,
      type: best.type,
      created: best.created,
      ...(best.status && best.status !== 'active' ? { status: best.status } : {}),
      ids: group.map((i) => i.id),
      passages,
      ...(group.some((i) => i.hits) ? { scores: scoresOf(group, passages) } : {}),
    };
  });
}
