// Property tests (fast-check) for everything hostile text can reach: filter literals, user and memory ids, and paths
// under the root. Each value is either refused with a usage error or confined: it never becomes filter code or a path outside.
import { isAbsolute, relative, resolve } from 'node:path';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { FsMemoryFiles } from '../../src/adapters/files/fs-memory-files.js';
import { buildFilter, quote } from '../../src/adapters/milvus/filter.js';
import { UsageError } from '../../src/errors.js';
import { assertMemoryId, assertUserId, isValidMemoryId, isValidUserId } from '../../src/memory/ids.js';
import { eligibilityScope } from '../../src/services/search.js';
import { tokenize } from '../support/filter-literals.js';

// Reproducible: a failure prints its seed and path, and the same seed finds it again.
const RUNS = { numRuns: 2000, seed: 20261201 };

// Strings biased towards what breaks parsers: quotes, backslashes, newlines, filter keywords, traversal.
const PIECES = [
  '"',
  "'",
  '\\',
  '\n',
  '\r',
  '\t',
  '\u0000',
  '\u2028',
  '\u202e',
  ' or ',
  ' and ',
  '!=',
  '==',
  '(',
  ')',
  '[',
  ']',
  ',',
  '%',
  '*',
  '../',
  '..',
  '/',
  '/etc/passwd',
  'C:\\',
  '~',
  'user',
  'alice',
  'é',
  '中',
  '😀',
  '${x}',
  '`',
];
const hostile = fc.oneof(
  fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }).map((a) => a.join('')),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.tuple(fc.constantFrom(...PIECES), fc.integer({ min: 60, max: 6000 })).map(([p, n]) => p.repeat(n)),
);

function refusedOr(fn: () => void): 'refused' | 'accepted' {
  try {
    fn();
    return 'accepted';
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return 'refused';
  }
}

describe('hostile values in filters', () => {
  it('a free-text value is refused or stays one literal that reads back as itself', () => {
    fc.assert(
      fc.property(hostile, hostile, hostile, (path, id, tag) => {
        let expr = '';
        if (refusedOr(() => (expr = buildFilter({ users: ['alice'], statuses: ['active'], paths: [path], memoryIds: [id], tags: [tag] }))) === 'refused') {
          // Refused only for control characters or excessive length, never silently altered.
          // eslint-disable-next-line no-control-regex -- control characters are what the filter refuses.
          expect([path, id, tag].some((v) => v.length > 4096 || /[\u0000-\u001f\u007f]/.test(v))).toBe(true);
          return;
        }
        const { skeleton, literals } = tokenize(expr);
        expect(skeleton).toBe('(user in [""]) and (status in [""]) and (path in [""]) and (memory_id in [""]) and (array_contains_any(tags, [""]))');
        expect(literals).toEqual(['alice', 'active', path, id, tag]);
      }),
      RUNS,
    );
  });

  it('a user id becomes a filter only when it is a valid id, and then as itself', () => {
    fc.assert(
      fc.property(hostile, (user) => {
        let expr = '';
        const outcome = refusedOr(() => (expr = buildFilter({ users: [user] })));
        expect(outcome === 'accepted').toBe(isValidUserId(user));
        if (outcome === 'accepted') expect(tokenize(expr)).toEqual({ skeleton: '(user in [""])', literals: [user] });
      }),
      RUNS,
    );
  });

  it('a search scope always names exactly the caller’s user, or all users only when asked explicitly', () => {
    fc.assert(
      fc.property(hostile, fc.array(hostile, { maxLength: 3 }), (user, tags) => {
        let scope: ReturnType<typeof eligibilityScope> | undefined;
        if (refusedOr(() => (scope = eligibilityScope({ query: 'q', user, tags }, new Date(0)))) === 'refused') {
          expect(isValidUserId(user)).toBe(false);
          return;
        }
        expect(scope!.users).toEqual([user]);
        expect(() => eligibilityScope({ query: 'q', tags }, new Date(0))).toThrow(UsageError);
      }),
      RUNS,
    );
    expect(eligibilityScope({ query: 'q', allUsers: true }, new Date(0)).users).toBe('all');
  });

  it('quote escapes exactly the two characters Milvus treats specially', () => {
    expect(quote('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(quote("it's")).toBe('"it\'s"');
    expect(() => quote('x'.repeat(4097))).toThrow(UsageError);
    expect(() => quote('line\nbreak')).toThrow(UsageError);
  });
});

describe('hostile ids', () => {
  it('a valid user id has no quote, backslash, slash, dot-dot, whitespace or control character', () => {
    fc.assert(
      fc.property(hostile, (v) => {
        if (!isValidUserId(v)) {
          expect(() => assertUserId(v)).toThrow(UsageError);
          return;
        }
        // eslint-disable-next-line no-control-regex -- no control character may survive into an id.
        expect(v).not.toMatch(/["'\\/\s\u0000-\u001f]|\.\./u);
        expect(v.length).toBeLessThanOrEqual(64);
      }),
      RUNS,
    );
  });

  it('a valid memory id is a relative path that stays where it is put', () => {
    fc.assert(
      fc.property(hostile, (v) => {
        if (!isValidMemoryId(v)) {
          expect(() => assertMemoryId(v)).toThrow(UsageError);
          return;
        }
        expect(v.length).toBeLessThanOrEqual(200);
        expect(isAbsolute(v)).toBe(false);
        expect(v.split('/')).not.toContain('..');
        // Never a path of its own (ids are looked up in the manifest), but nothing that breaks a line or a terminal.
        expect(v).not.toMatch(/[\p{Cc}\u2028\u2029]/u);
        const inside = resolve('/root', `${v}.md`);
        expect(relative('/root', inside).split('/')[0]).not.toBe('..');
      }),
      RUNS,
    );
  });

  it.each(['/etc/passwd', '../../x', 'a/../../b', 'a\u0000b', 'a\nb', 'x'.repeat(201), 'a//b', '\u001b[31mred'])('refuses the memory id %j', (id) => {
    expect(() => assertMemoryId(id)).toThrow(UsageError);
  });

  it.each(['/etc/passwd', '~root', 'a/b', 'alice\u202e', 'alice\u200b', 'ａｌｉｃｅ"', 'x'.repeat(65), ' alice', 'alice '])('refuses the user id %j', (id) => {
    expect(() => assertUserId(id)).toThrow(UsageError);
  });
});

describe('hostile paths under the memory root', () => {
  const files = new FsMemoryFiles('/srv/memories');

  it('resolves a path inside the root or refuses it', () => {
    fc.assert(
      fc.property(hostile, (p) => {
        let abs = '';
        if (refusedOr(() => (abs = files.resolveInside(p))) === 'refused') return;
        const rel = relative('/srv/memories', abs);
        expect(rel === '' || rel.startsWith('..') || isAbsolute(rel)).toBe(false);
      }),
      RUNS,
    );
  });

  it.each(['/etc/passwd', '../x.md', 'a/../../x.md', 'a/..', '..', '', '.', 'a\\..\\..\\x.md'])('refuses %j', (p) => {
    expect(() => files.resolveInside(p)).toThrow(UsageError);
  });
});
