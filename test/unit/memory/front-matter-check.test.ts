// Covers checkFrontMatter: on every value it accepts it returns exactly what the zod schema returns, it accepts the
// front matter memdir and people write, and it leaves every value the schema refuses to the schema.
import { describe, expect, it } from 'vitest';

import { checkFrontMatter } from '../../../src/memory/front-matter-check.js';
import { frontMatterSchema } from '../../../src/memory/front-matter-schema.js';

const long = (n: number) => 'x'.repeat(n);

// Per key: values the check must accept (valid), and values on either side of each rule.
const VALID: Record<string, unknown[]> = {
  id: ['alice/semantic/x', 'my note (1)', 42, 1.5, 'jos\u00e9/diary'],
  user: ['alice', 'jose\u0301', 'a.b_c@d-e'],
  type: ['working', 'episodic', 'semantic', 'procedural'],
  importance: [0, 0.5, 1],
  status: ['active', 'superseded', 'expired', 'consolidated'],
  created: [new Date('2026-12-01T09:30:00Z'), '2026-12-01', '2026-12-01T09:30:00+02:00'],
  updated: [new Date(0), '2020-02-29T00:00:00Z'],
  expires: [null, new Date('2030-01-01T00:00:00Z'), '2030-01-01'],
  key: [null, 'k', long(200)],
  supersedes: [null, 'alice/semantic/old', ['a', 'b/c']],
  superseded_by: [null, 'alice/semantic/new'],
  consolidated_into: [null, 'alice/semantic/summary'],
  source: [null, '', 'cli', long(500)],
  sources: [null, [], ['a', 'b']],
  tags: [null, [], ['a', ' b ', ''], [1, 'two'], 'a, b,,c', '', long(100)],
  confidence: [null, 0, 0.9, 1],
};

const REFUSED_OR_EDGE: Record<string, unknown[]> = {
  id: ['', ' padded', 'a//b', '../x', 'a\nb', Infinity, NaN, true, null, [], {}],
  user: ['', '-x', 'two words', 7, null, long(65)],
  type: ['Semantic', '', 3, null],
  importance: [-0.1, 1.1, '0.5', NaN, Infinity, null],
  status: ['done', null, 1],
  created: ['not a date', new Date(NaN), 5, null, true],
  updated: ['', [], null],
  expires: ['never', new Date(NaN), 0],
  key: ['', long(201), 3, []],
  supersedes: [[], '', ['ok', ''], ['ok', 3], 7],
  superseded_by: ['', ' x', 3],
  consolidated_into: ['..', 3],
  source: [long(501), 3, []],
  sources: ['a', [''], [3]],
  tags: [['a"b'], ['a\\b'], 'x\ny', [long(101)], [true], [NaN], [Infinity], 5, [null], { a: 1 }],
  confidence: [-1, 2, '1', NaN],
};

function agree(raw: Record<string, unknown>): 'accepted' | 'left to the schema' {
  const checked = checkFrontMatter(raw);
  const parsed = frontMatterSchema().safeParse(raw);
  if (checked === undefined) return 'left to the schema';
  expect(parsed.success, JSON.stringify(raw)).toBe(true);
  expect(checked).toEqual(parsed.data);
  return 'accepted';
}

describe('checkFrontMatter', () => {
  it('accepts every valid value of every key, with the value the schema returns', () => {
    for (const [key, values] of Object.entries(VALID)) {
      for (const value of values) expect(agree({ [key]: value }), `${key}: ${String(value)}`).toBe('accepted');
    }
  });

  it('accepts a whole front matter as memdir writes it, unknown keys dropped as the schema drops them', () => {
    const raw = {
      id: '2026-12-01-lisbon-trip-a1b2c3',
      user: 'alice',
      type: 'episodic',
      importance: 0.7,
      status: 'active',
      created: new Date('2026-12-01T09:30:00Z'),
      updated: new Date('2026-12-02T10:00:00Z'),
      tags: ['travel', 'lisbon'],
      source: 'cli',
      mood: 'happy',
    };
    expect(agree(raw)).toBe('accepted');
    expect(checkFrontMatter(raw)).not.toHaveProperty('mood');
    expect(agree({})).toBe('accepted');
  });

  it('leaves to the schema every value the schema refuses, and is never laxer on the edges', () => {
    let refusedBySchema = 0;
    for (const [key, values] of Object.entries(REFUSED_OR_EDGE)) {
      for (const value of values) {
        const raw = { [key]: value };
        agree(raw);
        if (!frontMatterSchema().safeParse(raw).success) {
          refusedBySchema++;
          expect(checkFrontMatter(raw), `${key}: ${String(value)}`).toBeUndefined();
        }
      }
    }
    expect(refusedBySchema).toBeGreaterThan(60);
  });

  it('leaves a front matter with one bad key among good ones to the schema', () => {
    expect(checkFrontMatter({ user: 'alice', importance: 2 })).toBeUndefined();
  });
});
