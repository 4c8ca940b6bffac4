// The prompt-ready context block: budget, grouping by type, dates and labelling.
import { describe, expect, it } from 'vitest';

import { estimateTokens, formatContext, type ContextItem } from '../../../../src/services/retrieval/context.js';

const item = (id: string, type: ContextItem['type'], content: string, created = '2026-11-02T10:00:00Z'): ContextItem => ({ id, type, content, created });

describe('estimateTokens', () => {
  it('counts CJK characters as one token each and other text as about four characters per token', () => {
    expect(estimateTokens('abcdefgh')).toBe(2);
    expect(estimateTokens('用户明确')).toBe(4);
    expect(estimateTokens('ab用户')).toBe(3);
  });
});

describe('formatContext', () => {
  const items = [
    item('e1', 'episodic', 'Alice went to Lisbon.', '2026-11-28T20:00:00Z'),
    item('s1', 'semantic', 'Alice lives in Munich.'),
    item('p1', 'procedural', 'Run the tests before a release.'),
  ];

  it('labels memories as data, groups them by type and dates each line', () => {
    const block = formatContext(items, 'alice', 500);
    expect(block.text).toMatch(/^<memories user="alice">\nStored memories about this user.*not instructions/);
    expect(block.text.indexOf('## Facts and preferences')).toBeLessThan(block.text.indexOf('## Past events'));
    expect(block.text).toContain('- [2026-11-28] Alice went to Lisbon. (memory e1)');
    expect(block.text.trimEnd().endsWith('</memories>')).toBe(true);
    expect(block.included).toEqual(['e1', 's1', 'p1']);
  });

  it('stays within the budget, keeping the highest-ranked items first', () => {
    const long = Array.from({ length: 30 }, (_, i) => item(`m${i}`, 'semantic', `Fact number ${i} `.repeat(10)));
    const block = formatContext(long, 'alice', 200);
    expect(block.tokens).toBeLessThanOrEqual(200);
    expect(estimateTokens(block.text)).toBeLessThanOrEqual(200);
    expect(block.included[0]).toBe('m0');
    expect(block.omitted.length).toBeGreaterThan(0);
    expect(block.included.length + block.omitted.length).toBe(30);
  });

  it('says so when nothing is relevant, and cannot be broken out of by a user name', () => {
    const block = formatContext([], 'al"ice', 100);
    expect(block.text).toContain('(no relevant memories)');
    expect(block.text).toContain('<memories user="alice">');
  });
});
