// Covers how long texts are cut for embedding: pieces never over the limit, cut at spaces where there are any,
// nothing lost but the spaces at the cuts.
import { describe, expect, it } from 'vitest';

import { MAX_PIECE_CHARS, splitForEmbedding } from '../../../../src/adapters/embedder/openai-embedder.js';

describe('splitForEmbedding', () => {
  it('keeps a short text whole, even an empty one', () => {
    expect(splitForEmbedding('Alice likes tea')).toEqual(['Alice likes tea']);
    expect(splitForEmbedding('')).toEqual(['']);
  });

  it('cuts long text at spaces into pieces within the limit', () => {
    const text = Array.from({ length: 3_000 }, (_, i) => `word${i}`).join(' ');
    const pieces = splitForEmbedding(text);
    expect(pieces.length).toBeGreaterThan(1);
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(MAX_PIECE_CHARS);
    expect(pieces.join(' ')).toBe(text);
  });

  it('cuts a text without spaces hard at the limit', () => {
    const pieces = splitForEmbedding('x'.repeat(4_500));
    expect(pieces.map((p) => p.length)).toEqual([2_000, 2_000, 500]);
  });
});
