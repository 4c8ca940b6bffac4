// Splits a memory body into chunks with remark's parser: one per heading section, long sections split at
// block boundaries (paragraphs, lists, code fences kept whole where they fit), each with its line range.
import { fromMarkdown } from 'mdast-util-from-markdown';

import type { Chunk } from './model.js';

export interface ChunkOptions {
  /** Sections longer than this are split; pieces stay under it unless one line is longer. */
  maxChars: number;
  /**
   * The context windows indexed beside the units (memory/units.ts): this many neighbouring units of a
   * section (stride 1), 'chunks' for the ~maxChars pieces of chunkMarkdown, 0 for none. Default DEFAULT_WINDOW.
   */
  window?: number | 'chunks';
}

export const DEFAULT_CHUNK_OPTIONS: ChunkOptions = { maxChars: 1500 };

export interface Block {
  start: number; // offset in body
  end: number;
  line: number; // 1-based line in body
  endLine: number;
  heading?: boolean;
  /** A list's items, each a unit of its own (a day log's entries). */
  items?: Block[];
}

export interface Section {
  heading: string;
  blocks: Block[];
}

// Chunking needs only the block structure. Inline constructs (emphasis, code spans, links) are
// switched off: nobody reads them here, and runs of thousands of `*` or backticks made remark take
// seconds to minutes on files of a few kilobytes.
export const INLINE_CONSTRUCTS = [
  'attention',
  'autolink',
  'characterEscape',
  'characterReference',
  'codeText',
  'hardBreakEscape',
  'htmlText',
  'labelEnd',
  'labelStartImage',
  'labelStartLink',
];
// remark-parse's own call, without unified around it: unified and vfile cost a one-file edit ~15 ms to load and add
// nothing to a parse (the same tree, node for node).
const MARKDOWN_OPTIONS = { extensions: [{ disable: { null: INLINE_CONSTRUCTS } }], mdastExtensions: [] };

/** A body's Markdown tree, block structure only (inline constructs switched off). */
export function markdownTree(body: string): ReturnType<typeof fromMarkdown> {
  return fromMarkdown(body, MARKDOWN_OPTIONS);
}

/**
 * Block quotes and lists nested deeper than this are not handed to remark: its time grows with the
 * square of the nesting (a 1 MB list nested 1,000 deep took 45 s), and no real note is nested so deep.
 */
export const MAX_NESTING = 32;

/** The deepest container nesting of any line: `>` and list markers at its start, plus its indentation in 4-column steps. */
export function nestingDepth(body: string): number {
  let deepest = 0;
  for (const line of body.split('\n')) {
    let i = 0;
    let columns = 0;
    for (; line[i] === ' ' || line[i] === '\t'; i++) columns += line[i] === '\t' ? 4 : 1;
    let depth = Math.floor(columns / 4);
    for (;;) {
      const marker = CONTAINER_MARKER.exec(line.slice(i, i + 12));
      if (!marker) break;
      depth++;
      i += marker[0].length;
    }
    deepest = Math.max(deepest, depth);
  }
  return deepest;
}

// A block quote marker or a list item marker, with the spaces that follow it.
const CONTAINER_MARKER = /^(?:>|[-+*](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$))[ \t]*/;

/** Paragraph-like blocks (runs of non-blank lines) without parsing: the fallback for pathological nesting. */
function plainBlocks(body: string): Section[] {
  const blocks: Block[] = [];
  let offset = 0;
  let line = 1;
  let cur: Block | null = null;
  for (const text of body.split('\n')) {
    const end = offset + text.length;
    if (text.trim() === '') {
      if (cur) blocks.push(cur);
      cur = null;
    } else if (cur) {
      cur.end = end;
      cur.endLine = line;
    } else {
      cur = { start: offset, end, line, endLine: line };
    }
    offset = end + 1;
    line++;
  }
  if (cur) blocks.push(cur);
  return blocks.length > 0 ? [{ heading: '', blocks }] : [];
}

function headingText(source: string): string {
  return source
    .replace(/^#{1,6}\s*/, '')
    .replace(/(^|\s+)#+\s*$/, '')
    .replace(/\n[=-]+\s*$/, '')
    .trim();
}

export function toSections(body: string): Section[] {
  if (nestingDepth(body) > MAX_NESTING) return plainBlocks(body);
  const tree = markdownTree(body);
  const sections: Section[] = [{ heading: '', blocks: [] }];
  let stack: { depth: number; text: string }[] = [];
  for (const node of tree.children) {
    const pos = node.position;
    if (!pos || pos.start.offset === undefined || pos.end.offset === undefined) continue;
    const block: Block = { start: pos.start.offset, end: pos.end.offset, line: pos.start.line, endLine: pos.end.line };
    if (node.type === 'heading') {
      stack = stack.filter((h) => h.depth < node.depth);
      stack.push({ depth: node.depth, text: headingText(body.slice(block.start, block.end)) });
      sections.push({ heading: stack.map((h) => h.text).join(' > '), blocks: [{ ...block, heading: true }] });
    } else {
      if (node.type === 'list') block.items = node.children.flatMap((item) => (item.position ? [blockAt(item.position)] : []));
      sections[sections.length - 1]!.blocks.push(block);
    }
  }
  return sections.filter((s) => s.blocks.length > 0);
}

function blockAt(pos: { start: { offset?: number; line: number }; end: { offset?: number; line: number } }): Block {
  return { start: pos.start.offset ?? 0, end: pos.end.offset ?? 0, line: pos.start.line, endLine: pos.end.line };
}

/** Splits one oversized block by lines, and a single overlong line by characters. */
export function splitBlock(body: string, block: Block, maxChars: number): Block[] {
  const pieces: Block[] = [];
  let cur: Block | null = null;
  let offset = block.start;
  let line = block.line;
  for (const lineText of body.slice(block.start, block.end).split('\n')) {
    const lineEnd = offset + lineText.length;
    if (lineText.length > maxChars) {
      if (cur) pieces.push(cur);
      cur = null;
      for (let s = offset; s < lineEnd; s += maxChars) {
        pieces.push({ start: s, end: Math.min(s + maxChars, lineEnd), line, endLine: line });
      }
    } else if (cur && lineEnd - cur.start > maxChars) {
      pieces.push(cur);
      cur = { start: offset, end: lineEnd, line, endLine: line };
    } else if (cur) {
      cur.end = lineEnd;
      cur.endLine = line;
    } else {
      cur = { start: offset, end: lineEnd, line, endLine: line };
    }
    offset = lineEnd + 1;
    line++;
  }
  if (cur) pieces.push(cur);
  return pieces;
}

/** Groups consecutive blocks into pieces no longer than maxChars of source. */
function packBlocks(body: string, blocks: Block[], maxChars: number): Block[] {
  const out: Block[] = [];
  let cur: Block | null = null;
  for (const block of blocks) {
    if (block.end - block.start > maxChars) {
      if (cur) out.push(cur);
      cur = null;
      out.push(...splitBlock(body, block, maxChars));
    } else if (cur !== null && block.end - cur.start <= maxChars) {
      cur.end = block.end;
      cur.endLine = block.endLine;
    } else {
      if (cur) out.push(cur);
      cur = { ...block };
    }
  }
  if (cur) out.push(cur);
  return out;
}

export function chunkMarkdown(body: string, bodyStartLine: number, options: ChunkOptions = DEFAULT_CHUNK_OPTIONS): Chunk[] {
  const chunks: Chunk[] = [];
  for (const section of toSections(body)) {
    for (const piece of packBlocks(body, section.blocks, options.maxChars)) {
      const text = body.slice(piece.start, piece.end).trim();
      if (!text) continue;
      chunks.push({
        heading: section.heading,
        text,
        lineStart: piece.line + bodyStartLine - 1,
        lineEnd: piece.endLine + bodyStartLine - 1,
      });
    }
  }
  return chunks;
}

/**
 * The text that is embedded and indexed for BM25: the chunk, preceded by its heading path when
 * the chunk does not start with that heading itself (so split sections keep their context).
 */
export function embedTextOf(chunk: Chunk): string {
  if (!chunk.heading || chunk.text.startsWith('#')) return chunk.text;
  return `${chunk.heading}\n\n${chunk.text}`;
}
