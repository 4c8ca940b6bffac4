// Covers chunkMarkdown / embedTextOf: heading sections and paths, file line ranges, fence-aware and size-bounded splitting.
import { describe, expect, it } from 'vitest';

import { MAX_NESTING, chunkMarkdown, embedTextOf, nestingDepth, type ChunkOptions } from '../../../src/memory/chunk.js';
import { parseMemory } from '../../../src/memory/parse.js';

const opts = (maxChars: number): ChunkOptions => ({ maxChars });

/** The file lines a chunk claims, joined: must contain the chunk text. */
function linesOf(text: string, start: number, end: number): string {
  return text
    .split('\n')
    .slice(start - 1, end)
    .join('\n');
}

describe('chunkMarkdown', () => {
  it('makes one chunk per heading section with the heading path', () => {
    const body = '# A\n\npara\n\n## B\n\nmore\n\n### C\ntext\n# D\nx';
    expect(chunkMarkdown(body, 1)).toEqual([
      { heading: 'A', text: '# A\n\npara', lineStart: 1, lineEnd: 3 },
      { heading: 'A > B', text: '## B\n\nmore', lineStart: 5, lineEnd: 7 },
      { heading: 'A > B > C', text: '### C\ntext', lineStart: 9, lineEnd: 10 },
      { heading: 'D', text: '# D\nx', lineStart: 11, lineEnd: 12 },
    ]);
  });

  it('gives text before the first heading an empty heading path', () => {
    expect(chunkMarkdown('Intro line.\n\n# Title\nBody', 1)).toEqual([
      { heading: '', text: 'Intro line.', lineStart: 1, lineEnd: 1 },
      { heading: 'Title', text: '# Title\nBody', lineStart: 3, lineEnd: 4 },
    ]);
  });

  it('offsets line ranges by the body start line', () => {
    const chunks = chunkMarkdown('# A\n\npara\n\n## B\nmore', 7);
    expect(chunks.map((c) => [c.lineStart, c.lineEnd])).toEqual([
      [7, 9],
      [11, 12],
    ]);
  });

  it('reports line ranges as lines of the whole file, front matter included', () => {
    const file = '---\nuser: alice\ntags: [a]\n---\n\n# Trip\n\nDay one.\n\n## Day 2\n\nMuseum.\nDinner.\n';
    const doc = parseMemory(file, { path: 'alice/x.md', defaultUser: 'd', fallbackTime: '2024-01-01T00:00:00.000Z' });
    const chunks = chunkMarkdown(doc.body, doc.bodyStartLine);
    expect(chunks.map((c) => [c.heading, c.lineStart, c.lineEnd])).toEqual([
      ['Trip', 6, 8],
      ['Trip > Day 2', 10, 13],
    ]);
    for (const c of chunks) expect(linesOf(file, c.lineStart, c.lineEnd)).toBe(c.text);
  });

  it('builds heading paths through deeply nested and skipped levels', () => {
    const body = '# 1\n## 2\n### 3\n#### 4\n##### 5\n###### 6\ntext six\n## 2b\ntext\n#### 4b\nx\n# Top\ny';
    expect(chunkMarkdown(body, 1).map((c) => c.heading)).toEqual([
      '1',
      '1 > 2',
      '1 > 2 > 3',
      '1 > 2 > 3 > 4',
      '1 > 2 > 3 > 4 > 5',
      '1 > 2 > 3 > 4 > 5 > 6',
      '1 > 2b',
      '1 > 2b > 4b',
      'Top',
    ]);
  });

  it('strips ATX closing sequences and reads setext headings', () => {
    expect(chunkMarkdown('## Closed ##\ntext', 1)[0]!.heading).toBe('Closed');
    expect(chunkMarkdown('Title\n=====\n\ntext', 1)).toEqual([{ heading: 'Title', text: 'Title\n=====\n\ntext', lineStart: 1, lineEnd: 4 }]);
    expect(chunkMarkdown('Sub\n---\ntext', 1)[0]!.heading).toBe('Sub');
  });

  it('keeps a "#" that is part of the heading text (no space before it)', () => {
    // CommonMark: a closing sequence must be preceded by a space, so this heading is "Learning C#".
    expect(chunkMarkdown('# Learning C#\n\nNotes.', 1)[0]!.heading).toBe('Learning C#');
  });

  it('does not treat "#" lines inside a code fence as headings', () => {
    const body = '# Script\n\n```sh\n# comment, not a heading\necho hi\n```\n';
    const chunks = chunkMarkdown(body, 1);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.heading).toBe('Script');
  });

  it('keeps a code fence whole in its own chunk when the section is too long but the fence fits', () => {
    const para = 'Some explanation that comes before the code block, long enough.';
    const fence = '```js\nconst a = 1;\n\nconst b = 2;\n\n// blank lines inside the fence\n```';
    const body = `# Code\n\n${para}\n\n${fence}\n\nAfter the fence.`;
    const chunks = chunkMarkdown(body, 1, opts(fence.length + 5));
    const withFence = chunks.filter((c) => c.text.includes('```'));
    expect(withFence).toHaveLength(1);
    expect(withFence[0]!.text).toContain(fence);
    expect(withFence[0]!.lineStart).toBe(5);
    expect(withFence[0]!.lineEnd).toBeGreaterThanOrEqual(11);
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(fence.length + 5);
    for (const c of chunks) expect(c.heading).toBe('Code');
  });

  it('splits a long section at paragraph boundaries, each piece under maxChars', () => {
    const paras = Array.from({ length: 7 }, (_, i) => `Paragraph ${i + 1} ${'word '.repeat(8).trim()} end.`);
    const body = `# Long\n\n${paras.join('\n\n')}\n`;
    const maxChars = 120;
    const chunks = chunkMarkdown(body, 1, opts(maxChars));
    expect(chunks.length).toBeGreaterThan(2);
    const seen: string[] = [];
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(maxChars);
      expect(c.heading).toBe('Long');
      // Every piece is made of whole paragraphs (or the heading).
      for (const part of c.text.split('\n\n')) {
        expect(['# Long', ...paras]).toContain(part);
        seen.push(part);
      }
      expect(linesOf(body, c.lineStart, c.lineEnd)).toBe(c.text);
    }
    expect(seen).toEqual(['# Long', ...paras]);
  });

  it('splits one oversized paragraph by lines', () => {
    const lines = Array.from({ length: 12 }, (_, i) => `line ${String(i + 1).padStart(2, '0')} of a soft-wrapped paragraph`);
    const body = lines.join('\n');
    const chunks = chunkMarkdown(body, 3, opts(100));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((c) => c.text).join('\n')).toBe(body);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(100);
      expect(c.text).toBe(lines.slice(c.lineStart - 3, c.lineEnd - 2).join('\n'));
    }
  });

  it('splits a single overlong line by characters, all pieces on that line', () => {
    const long = 'x'.repeat(95) + 'y'.repeat(95) + 'z'.repeat(60);
    const body = `# Blob\n\n${long}\n\nTail.`;
    const chunks = chunkMarkdown(body, 1, opts(100));
    const pieces = chunks.filter((c) => /^[xyz]+$/.test(c.text));
    expect(pieces.map((p) => p.text.length)).toEqual([100, 100, 50]);
    expect(pieces.map((p) => p.text).join('')).toBe(long);
    for (const p of pieces) expect([p.lineStart, p.lineEnd]).toEqual([3, 3]);
    expect(chunks.map((c) => c.text)).toEqual(['# Blob', ...pieces.map((p) => p.text), 'Tail.']);
  });

  it('returns no chunks for an empty or blank body', () => {
    expect(chunkMarkdown('', 1)).toEqual([]);
    expect(chunkMarkdown('\n\n   \n\t\n', 4)).toEqual([]);
  });

  it('keeps the whole text of a small document in one chunk', () => {
    const body = 'Alice likes green tea.\n\nShe drinks it every morning.\n\n- sencha\n- matcha';
    expect(chunkMarkdown(body, 1)).toEqual([{ heading: '', text: body, lineStart: 1, lineEnd: 6 }]);
  });
});

describe('pathological Markdown', { timeout: 30_000 }, () => {
  // Each of these took remark seconds to minutes before (inline parsing, or nesting growing quadratically);
  // a regression shows up as this file hitting the test timeout.
  it('measures container nesting from quote markers, list markers and indentation', () => {
    expect(nestingDepth('plain\n\n# Heading')).toBe(0);
    expect(nestingDepth('> a\n> > b\n- c\n  - d')).toBe(2);
    expect(nestingDepth('1. one\n   2) two')).toBe(1);
    expect(nestingDepth('>>>> x')).toBe(4);
    expect(nestingDepth('- - - x')).toBe(3);
    expect(nestingDepth(`${' '.repeat(40)}code`)).toBe(10);
    expect(nestingDepth('-not a marker *nor this')).toBe(0);
  });

  it('chunks deeply nested lists and quotes as plain blocks, keeping every line and its number', () => {
    const list = Array.from({ length: 2000 }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n');
    const quotes = Array.from({ length: 2000 }, (_, i) => `${'>'.repeat(i + 1)} level ${i}`).join('\n');
    for (const body of [list, quotes, `${'- '.repeat(8000)}x`, `${'>'.repeat(100_000)} deep`]) {
      expect(nestingDepth(body)).toBeGreaterThan(MAX_NESTING);
      const chunks = chunkMarkdown(body, 3, opts(1500));
      expect(chunks.length).toBeGreaterThan(0);
      expect(chunks.every((c) => c.heading === '' && c.text.length <= 1500)).toBe(true);
      expect(
        chunks
          .map((c) => c.text)
          .join('')
          .replace(/\s/g, ''),
      ).toBe(body.replace(/\s/g, ''));
      const lines = `---\n---\n${body}`.split('\n');
      for (const c of chunks) expect(lines.slice(c.lineStart - 1, c.lineEnd).join('\n')).toContain(c.text);
    }
  });

  it('keeps headings and sections for nesting up to the limit', () => {
    const body = `# Deep\n\n${'> '.repeat(MAX_NESTING)}still parsed\n\n## Next\n\ntext`;
    expect(chunkMarkdown(body, 1).map((c) => c.heading)).toEqual(['Deep', 'Deep > Next']);
  });

  it('treats runs of emphasis markers, backticks and brackets as text', () => {
    const body = `# Title with *stars* and \`code\`\n\n${'*'.repeat(8000)}x${'*'.repeat(8000)}\n\n${'['.repeat(8000)}y\n\n${Array.from({ length: 300 }, (_, i) => '`'.repeat(i + 1)).join(' ')}`;
    const chunks = chunkMarkdown(body, 1, opts(1500));
    expect(chunks[0]!.heading).toBe('Title with *stars* and `code`');
    expect(chunks.every((c) => c.heading === 'Title with *stars* and `code`')).toBe(true);
    expect(
      chunks
        .map((c) => c.text)
        .join('')
        .replace(/\s/g, ''),
    ).toBe(body.replace(/\s/g, ''));
  });

  it('splits a single one-megabyte line into bounded pieces on line 1', () => {
    const body = 'word '.repeat(200_000);
    const chunks = chunkMarkdown(body, 1, opts(1500));
    expect(chunks.length).toBeGreaterThan(600);
    expect(chunks.every((c) => c.lineStart === 1 && c.lineEnd === 1 && c.text.length <= 1500)).toBe(true);
  });

  it('handles thousands of headings of every level, and 7+ hashes as text', () => {
    const body = Array.from({ length: 1200 }, (_, i) => `${'#'.repeat(1 + (i % 6))} H${i}\n\ntext ${i}`).join('\n\n');
    const chunks = chunkMarkdown(body, 1, opts(1500));
    expect(chunks).toHaveLength(1200);
    expect(chunks[5]!.heading).toBe('H0 > H1 > H2 > H3 > H4 > H5');
    expect(chunks[6]!.heading).toBe('H6');
    expect(chunkMarkdown('####### seven\n\ntext', 1)).toEqual([{ heading: '', text: '####### seven\n\ntext', lineStart: 1, lineEnd: 3 }]);
  });
});

describe('embedTextOf', () => {
  it('prefixes the heading path when the chunk does not start with its heading', () => {
    expect(embedTextOf({ heading: 'Trip > Day 2', text: 'Museum.', lineStart: 3, lineEnd: 3 })).toBe('Trip > Day 2\n\nMuseum.');
  });

  it('leaves chunks that start with a heading, or have none, as they are', () => {
    expect(embedTextOf({ heading: 'Trip', text: '# Trip\nDay one.', lineStart: 1, lineEnd: 2 })).toBe('# Trip\nDay one.');
    expect(embedTextOf({ heading: '', text: 'Intro.', lineStart: 1, lineEnd: 1 })).toBe('Intro.');
  });
});
