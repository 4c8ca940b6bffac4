// Covers markdownTree: the parse chunking builds on is remark-parse's own (the same tree, positions included, as
// unified().use(remarkParse) with the same micromark extension), without loading unified.
import remarkParse from 'remark-parse';
import { describe, expect, it, vi } from 'vitest';

import { INLINE_CONSTRUCTS, markdownTree, toSections } from '../../../src/memory/chunk.js';

// Any import of unified by the chunker's module graph goes through this factory (the reference below bypasses it).
const imported = vi.hoisted(() => ({ unified: 0 }));
vi.mock('unified', async (original) => {
  imported.unified++;
  return original();
});

const BODIES = [
  '',
  '# Title\n\nA paragraph with *emphasis*, `code`, [a link](http://x) and <b>html</b>.\n',
  '## Day 1\n\n- one\n- two\n  - nested\n\n1. first\n2. second\n\n> quoted\n> text\n',
  'Setext\n======\n\nText\n---\n\n```js\nconst a = 1;\n```\n\n    indented code\n\n***\n',
  '# A\n## B\n### C #\ntext\r\nmore\r\n\n| a | b |\n|---|---|\n| 1 | 2 |\n',
  '<div>\nblock html\n</div>\n\n[ref]: http://example.com\n\n\\# not a heading &amp; entity\n',
  'line one  \nline two\\\nline three\n\n' + '*'.repeat(2_000) + '\n',
];

describe('markdownTree', () => {
  it("is remark-parse's tree for every kind of block", async () => {
    const { unified } = await vi.importActual<typeof import('unified')>('unified');
    const reference = unified()
      .use(remarkParse)
      .data('micromarkExtensions', [{ disable: { null: INLINE_CONSTRUCTS } }]);
    for (const body of BODIES) expect(markdownTree(body), JSON.stringify(body)).toEqual(reference.parse(body));
  });

  it('chunks without loading unified', () => {
    expect(toSections('# A\n\ntext\n\n## B\n\n- x\n- y\n').map((s) => s.heading)).toEqual(['A', 'A > B']);
    expect(imported.unified).toBe(0);
  });
});
