// Covers chunkMarkdown / embedTextOf: heading sections and paths, file line ranges, fence-aware and size-bounded splitting.
import { describe, expect, it } from 'vitest';

import { chunkMarkdown, embedTextOf, type ChunkOptions } from '../../../src/memory/chunk.js';
import { parseMemory } from '../../../src/memory/parse.js';

const opts = (maxChars: number): ChunkOptions => ({ maxChars });

/** The file lines a chunk claims, joined: must contain the chunk text. */
function linesOf(text: string, start: number, end: number): string {
  return text.split('\n').slice(start - 1, end).join('\n');
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
    expect(chunks.map((c) => [c.lineStart, c.lineEnd])).toEqual([[7, 9], [11, 12]]);
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
      '1', '1 > 2', '1 > 2 > 3', '1 > 2 > 3 > 4', '1 > 2 > 3 > 4 > 5', '1 > 2 > 3 > 4 > 5 > 6',
      '1 > 2b', '1 > 2b > 4b', 'Top',
    ]);
  });

  it('strips ATX closing sequences and reads setext headings', () => {
    expect(chunkMarkdown('## Closed ##\ntext', 1)[0]!.heading).toBe('Closed');
    expect(chunkMarkdown('Title\n=====\n\ntext', 1)).toEqual([
      { heading: 'Title', text: 'Title\n=====\n\ntext', lineStart: 1, lineEnd: 4 },
    ]);
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

describe('embedTextOf', () => {
  it('prefixes the heading path when the chunk does not start with its heading', () => {
    expect(embedTextOf({ heading: 'Trip > Day 2', text: 'Museum.', lineStart: 3, lineEnd: 3 })).toBe('Trip > Day 2\n\nMuseum.');
  });

  it('leaves chunks that start with a heading, or have none, as they are', () => {
    expect(embedTextOf({ heading: 'Trip', text: '# Trip\nDay one.', lineStart: 1, lineEnd: 2 })).toBe('# Trip\nDay one.');
    expect(embedTextOf({ heading: '', text: 'Intro.', lineStart: 1, lineEnd: 1 })).toBe('Intro.');
  });
});
