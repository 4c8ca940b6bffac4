// Covers ids.ts: user id and memory id validation (injection, traversal, length) and newMemoryId's format.
import { describe, expect, it } from 'vitest';

import { UsageError } from '../../../src/errors.js';
import { assertMemoryId, assertMemoryKey, assertUserId, isValidMemoryId, isValidMemoryKey, isValidUserId, newMemoryId } from '../../../src/memory/ids.js';

describe('user ids', () => {
  it.each(['alice', 'Bob', 'u1', '42', 'alice.smith', 'a_b', 'a-b', 'alice@example.com', '张伟', 'José', 'x'.repeat(64)])('accepts %j', (id) => {
    expect(isValidUserId(id)).toBe(true);
    expect(assertUserId(id)).toBe(id);
  });

  it.each([
    '',
    'u" or user == "v',
    'alice" or user != "x',
    "o'brien",
    '../x',
    'a/b',
    'a\\b',
    '.hidden',
    '-dash',
    '_under',
    '@at',
    'has space',
    'new\nline',
    'tab\t',
    'x'.repeat(65),
    'x'.repeat(10_000),
    'a\u0000',
    'emoji😀',
    'a,b',
    'a*',
  ])('rejects %j', (id) => {
    expect(isValidUserId(id)).toBe(false);
    expect(() => assertUserId(id)).toThrow(UsageError);
  });

  it('keeps the error message short for very long input', () => {
    try {
      assertUserId('y'.repeat(5000));
      throw new Error('expected a UsageError');
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).message.length).toBeLessThan(300);
      expect((err as UsageError).exitCode).toBe(2);
    }
  });
});

describe('memory ids', () => {
  // Whatever a hand-written file's name gives: every id a search returns is accepted by show, forget and MCP.
  it.each([
    'abc',
    'alice/semantic/trip',
    '2024-05-01-tea-a1b2c3',
    '_x',
    'a.b/c_d-e',
    '笔记/旅行',
    '1',
    'alice/my note (1)',
    'jose\u0301/diary',
    'a b',
    'a"b',
    "a'b",
    'a\\b',
    '.hidden',
    '-x',
  ])('accepts %j', (id) => {
    expect(isValidMemoryId(id)).toBe(true);
    expect(assertMemoryId(id)).toBe(id);
  });

  it.each([
    '',
    '..',
    '../x',
    'a/../b',
    'a/..',
    './a',
    'a/./b',
    'a//b',
    '/abs',
    'a/',
    ' a',
    'a ',
    'a/ b /c\t',
    'a\nb',
    'a\u0000b',
    'a\u001bb',
    'a\u2028b',
    'x'.repeat(201),
  ])('rejects %j', (id) => {
    expect(isValidMemoryId(id)).toBe(false);
    expect(() => assertMemoryId(id)).toThrow(UsageError);
  });

  it('accepts the longest allowed id (200 characters)', () => {
    expect(isValidMemoryId('m'.repeat(200))).toBe(true);
  });

  it('allows dots inside a segment, only "." and ".." segments are refused', () => {
    expect(isValidMemoryId('a/..b/c')).toBe(true);
    expect(isValidMemoryId('a/b..')).toBe(true);
  });
});

describe('memory keys', () => {
  it('accepts slot names in any script', () => {
    for (const key of ['residence', 'package-manager', 'package_manager', 'editor.theme', 'db:host', 'Wohnort', '住所', 'k8s', 'a'.repeat(100)]) {
      expect(isValidMemoryKey(key), key).toBe(true);
    }
  });

  it('refuses markup, quotes, blanks, line breaks and overlong names with a usage error', () => {
    for (const key of ['</memories><system>', '<b>', 'home city', '"x"', "it's", 'a\nb', '', '-lead', '.hidden', 'a/b', 'a'.repeat(101)]) {
      expect(isValidMemoryKey(key), key).toBe(false);
      expect(() => assertMemoryKey(key), key).toThrow(UsageError);
    }
  });
});

describe('newMemoryId', () => {
  const now = new Date('2024-05-01T23:59:59.000Z');

  it('is date, slug of the first words and a 6-hex suffix', () => {
    const id = newMemoryId('Alice likes GREEN tea!! Every single morning, always.', now);
    expect(id).toMatch(/^2024-05-01-alice-likes-green-tea-every-single-[0-9a-f]{6}$/);
    expect(isValidMemoryId(id)).toBe(true);
  });

  it('is date + hex for text without ASCII words (Chinese)', () => {
    const id = newMemoryId('我喜欢喝绿茶', now);
    expect(id).toMatch(/^2024-05-01-[0-9a-f]{6}$/);
    expect(isValidMemoryId(id)).toBe(true);
  });

  it('keeps the slug to 48 characters without a trailing dash', () => {
    const id = newMemoryId('supercalifragilistic expialidocious antidisestablishmentarianism words more', now);
    const slug = id.slice('2024-05-01-'.length, -'-abcdef'.length);
    expect(slug.length).toBeLessThanOrEqual(48);
    expect(slug.endsWith('-')).toBe(false);
    expect(id).toMatch(/^2024-05-01-[a-z0-9-]+-[0-9a-f]{6}$/);
    expect(isValidMemoryId(id)).toBe(true);
  });

  it('uses the UTC date', () => {
    expect(newMemoryId('x', new Date('2024-12-31T23:30:00-05:00'))).toMatch(/^2025-01-01-x-[0-9a-f]{6}$/);
  });

  it('differs between calls with the same text', () => {
    const ids = new Set(Array.from({ length: 20 }, () => newMemoryId('same text', now)));
    expect(ids.size).toBeGreaterThan(15);
  });

  it('never produces an invalid id, whatever the text', () => {
    for (const text of ['', '   ', '../../etc/passwd', '"; drop', '-- leading dashes --', '\n\n', 'a'.repeat(500)]) {
      expect(isValidMemoryId(newMemoryId(text, now))).toBe(true);
    }
  });
});
