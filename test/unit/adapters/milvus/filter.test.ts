// Covers the Milvus filter builder: exact expressions, escaping, validation, and a property check that no value can escape its literal.
import { describe, expect, it } from 'vitest';

import { buildFilter, quote, type FilterSpec } from '../../../../src/adapters/milvus/filter.js';
import { InternalError, UsageError } from '../../../../src/errors.js';
import type { MemoryStatus, MemoryType } from '../../../../src/memory/model.js';
import { tokenize } from '../../../support/filter-literals.js';

function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error('expected a UsageError');
}

// A small seeded PRNG so failures are reproducible.
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = [
  '"',
  '"',
  '\\',
  '\\',
  "'",
  ' ',
  'a',
  'b',
  'o',
  'r',
  '=',
  '!',
  '(',
  ')',
  '[',
  ']',
  ',',
  '%',
  '_',
  '/',
  '.',
  'é',
  '中',
  '😀',
  'or',
  ' or ',
  ' and ',
  '" or user != "x',
  '\\"',
  '\\\\"',
];

function randomString(next: () => number): string {
  const len = Math.floor(next() * 24);
  let s = '';
  for (let i = 0; i < len; i++) s += ALPHABET[Math.floor(next() * ALPHABET.length)]!;
  return s;
}

describe('quote', () => {
  it('wraps plain values in double quotes', () => {
    expect(quote('alice')).toBe('"alice"');
    expect(quote('')).toBe('""');
    expect(quote('中文 path/x.md')).toBe('"中文 path/x.md"');
  });

  it('escapes double quotes and backslashes', () => {
    expect(quote('a"b')).toBe('"a\\"b"');
    expect(quote('a\\b')).toBe('"a\\\\b"');
    expect(quote('\\"')).toBe('"\\\\\\""');
    expect(quote('alice" or user != "x')).toBe('"alice\\" or user != \\"x"');
  });

  it('leaves single quotes alone inside a double-quoted literal', () => {
    expect(quote("o'brien")).toBe('"o\'brien"');
  });

  it.each(['a\nb', 'a\rb', 'tab\there', 'nul\u0000', 'esc\u001b[0m', 'del\u007f', '\u001f'])('rejects control characters in %j', (v) => {
    expect(usageError(() => quote(v)).message).toMatch(/control characters/);
  });

  // What no use case sends is an internal error (exit 1); a value that may come from a user is a usage error.
  it('rejects non-strings and over-long values', () => {
    expect(() => quote(42)).toThrow(InternalError);
    expect(() => quote(null)).toThrow(InternalError);
    expect(() => quote(undefined)).toThrow(InternalError);
    expect(() => quote('x'.repeat(4097))).toThrow(UsageError);
    expect(quote('x'.repeat(4096))).toHaveLength(4098);
  });
});

describe('buildFilter', () => {
  it('builds the user clause alone', () => {
    expect(buildFilter({ users: ['alice'] })).toBe('(user in ["alice"])');
    expect(buildFilter({ users: ['alice', 'bob'] })).toBe('(user in ["alice", "bob"])');
  });

  it('builds a typical search scope, clauses in a fixed order joined by and', () => {
    expect(
      buildFilter({
        users: ['alice'],
        statuses: ['active'],
        types: ['semantic', 'episodic'],
        notExpiredAt: 1714521600000,
        tags: ['tea'],
      }),
    ).toBe(
      '(user in ["alice"]) and (status in ["active"]) and (type in ["semantic", "episodic"]) and (expires > 1714521600000) and (array_contains_any(tags, ["tea"]))',
    );
  });

  it('builds the stale-chunk delete of one file', () => {
    expect(buildFilter({ users: 'all', paths: ['alice/semantic/x.md'], excludeChunkIds: ['0a1b', 'ff'] })).toBe(
      '(path in ["alice/semantic/x.md"]) and (chunk_id not in ["0a1b", "ff"])',
    );
  });

  it('builds the delete of stale chunks by primary key', () => {
    expect(buildFilter({ users: 'all', chunkIds: ['0a1b', 'ff'] })).toBe('(chunk_id in ["0a1b", "ff"])');
  });

  it('omits the chunk clause for an empty keep list (deletes all rows of the path)', () => {
    expect(buildFilter({ users: 'all', paths: ['a.md'], excludeChunkIds: [] })).toBe('(path in ["a.md"])');
  });

  it('builds memory id and chunk-prefix clauses', () => {
    expect(buildFilter({ users: ['bob'], memoryIds: ['bob/semantic/x', '2024-01-01-tea-abcdef'] })).toBe(
      '(user in ["bob"]) and (memory_id in ["bob/semantic/x", "2024-01-01-tea-abcdef"])',
    );
    expect(buildFilter({ users: 'all', chunkIdPrefix: '0f' })).toBe('(chunk_id like "0f%")');
  });

  it("builds the row-kind clause and the line-span clause of a window's units, escaping paths", () => {
    expect(buildFilter({ users: ['bob'], kinds: ['unit'] })).toBe('(user in ["bob"]) and (kind in ["unit"])');
    expect(
      buildFilter({
        users: ['bob'],
        kinds: ['unit'],
        within: [
          { path: 'bob/episodic/a.md', lineStart: 3, lineEnd: 9 },
          { path: 'x" or user != "y', lineStart: 1, lineEnd: 2 },
        ],
      }),
    ).toBe(
      '(user in ["bob"]) and (kind in ["unit"]) and ((path == "bob/episodic/a.md" and line_start >= 3 and line_end <= 9) or (path == "x\\" or user != \\"y" and line_start >= 1 and line_end <= 2))',
    );
    expect(() => buildFilter({ users: ['bob'], kinds: ['chunk' as 'unit'] })).toThrow(UsageError);
    expect(() => buildFilter({ users: ['bob'], within: [] })).toThrow(InternalError);
    expect(() => buildFilter({ users: ['bob'], within: [{ path: 'a.md', lineStart: 1.5, lineEnd: 2 }] })).toThrow(InternalError);
  });

  it('adds no user clause for users "all", and returns "" for an empty scope', () => {
    expect(buildFilter({ users: 'all' })).toBe('');
    expect(buildFilter({ users: 'all', statuses: ['active'] })).toBe('(status in ["active"])');
  });

  it('escapes quotes and backslashes in paths, ids and tags', () => {
    expect(buildFilter({ users: 'all', paths: ['we"ird\\name.md'] })).toBe('(path in ["we\\"ird\\\\name.md"])');
    expect(buildFilter({ users: 'all', tags: ['a"b'] })).toBe('(array_contains_any(tags, ["a\\"b"]))');
  });

  it.each(['alice" or user != "x', 'u" or user == "v', '../x', 'a b', '', 'x'.repeat(65), 'new\nline', "o'brien"])('rejects the invalid user id %j', (user) => {
    expect(() => buildFilter({ users: [user] })).toThrow(UsageError);
    expect(() => buildFilter({ users: ['alice', user] })).toThrow(UsageError);
  });

  it('rejects invalid statuses and types', () => {
    expect(() => buildFilter({ users: 'all', statuses: ['deleted' as MemoryStatus] })).toThrow(UsageError);
    expect(() => buildFilter({ users: 'all', statuses: ['active" or 1 == 1 or "' as MemoryStatus] })).toThrow(UsageError);
    expect(() => buildFilter({ users: 'all', types: ['Semantic' as MemoryType] })).toThrow(UsageError);
    expect(() => buildFilter({ users: 'all', types: ['semantic', ''] as MemoryType[] })).toThrow(UsageError);
  });

  it('rejects empty lists rather than matching nothing or everything', () => {
    expect(() => buildFilter({ users: [] })).toThrow(/empty/);
    expect(() => buildFilter({ users: [] })).toThrow(InternalError);
    expect(() => buildFilter({ users: 'all', statuses: [] })).toThrow(InternalError);
    expect(() => buildFilter({ users: 'all', types: [] })).toThrow(InternalError);
    expect(() => buildFilter({ users: 'all', paths: [] })).toThrow(InternalError);
    expect(() => buildFilter({ users: 'all', memoryIds: [] })).toThrow(InternalError);
    expect(() => buildFilter({ users: 'all', tags: [] })).toThrow(InternalError);
  });

  it('requires an explicit user scope', () => {
    expect(() => buildFilter({} as FilterSpec)).toThrow(InternalError);
    expect(() => buildFilter({ users: 'alice' } as unknown as FilterSpec)).toThrow(InternalError);
  });

  it('rejects control characters in any value', () => {
    expect(() => buildFilter({ users: 'all', paths: ['a\nb.md'] })).toThrow(UsageError);
    expect(() => buildFilter({ users: 'all', memoryIds: ['x\u0000'] })).toThrow(UsageError);
    expect(() => buildFilter({ users: 'all', tags: ['t\r'] })).toThrow(UsageError);
  });

  it('rejects non-integer expiry bounds', () => {
    for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]) {
      expect(() => buildFilter({ users: 'all', notExpiredAt: bad })).toThrow(InternalError);
    }
    expect(buildFilter({ users: 'all', notExpiredAt: 0 })).toBe('(expires > 0)');
  });

  it('rejects chunk ids and prefixes that are not lowercase hex', () => {
    expect(() => buildFilter({ users: 'all', excludeChunkIds: ['abc"'] })).toThrow(InternalError);
    expect(() => buildFilter({ users: 'all', excludeChunkIds: ['ABC'] })).toThrow(InternalError);
    expect(() => buildFilter({ users: 'all', excludeChunkIds: ['a'.repeat(65)] })).toThrow(InternalError);
    expect(() => buildFilter({ users: 'all', chunkIds: ['0a', 'x" or 1==1'] })).toThrow(InternalError);
    expect(() => buildFilter({ users: 'all', chunkIds: [] })).toThrow(InternalError);
    for (const p of ['', 'g', '0f%', '0123456789', 'a"']) {
      expect(() => buildFilter({ users: 'all', chunkIdPrefix: p })).toThrow(InternalError);
    }
  });

  it('tokenizer self-check: recognises an escaped-quote injection as one literal', () => {
    expect(tokenize('(path in ["a\\" or 1 == 1 or \\"b"])')).toEqual({ skeleton: '(path in [""])', literals: ['a" or 1 == 1 or "b'] });
    expect(() => tokenize('(path in ["a" or "b"])')).not.toThrow();
    expect(tokenize('(path in ["a" or "b"])').skeleton).toBe('(path in ["" or ""])');
    expect(() => tokenize('(path in ["a\\"])')).toThrow(/unterminated/);
  });

  it('never lets a value escape its literal (random strings with quotes and backslashes)', () => {
    const next = rng(20240501);
    for (let n = 0; n < 2000; n++) {
      const a = randomString(next);
      const b = randomString(next);
      const c = randomString(next);
      const expr = buildFilter({ users: ['alice'], paths: [a], memoryIds: [b, c], tags: [c] });
      const { skeleton, literals } = tokenize(expr);
      expect(skeleton).toBe('(user in [""]) and (path in [""]) and (memory_id in ["", ""]) and (array_contains_any(tags, [""]))');
      expect(literals).toEqual(['alice', a, b, c, c]);
      // Each single literal unescapes to its input.
      expect(tokenize(quote(a)).literals).toEqual([a]);
    }
  });

  it('neutralises the classic injection attempt in every free-text field', () => {
    const attack = 'alice" or user != "x';
    const expr = buildFilter({ users: 'all', paths: [attack], memoryIds: [attack], tags: [attack] });
    const { skeleton, literals } = tokenize(expr);
    expect(skeleton).toBe('(path in [""]) and (memory_id in [""]) and (array_contains_any(tags, [""]))');
    expect(literals).toEqual([attack, attack, attack]);
    expect(() => buildFilter({ users: [attack] })).toThrow(UsageError);
  });
});
