// Covers parseMemory's use of zod: a valid file is parsed without importing zod (~75 ms to load in a one-file
// edit), and an invalid one still gets the schema's exact wording, from zod loaded on demand.
import { describe, expect, it, vi } from 'vitest';

import { InvalidMemoryError } from '../../../src/errors.js';
import { parseMemory } from '../../../src/memory/parse.js';
import { thrown } from '../../support/thrown.js';

// Any import of zod's ES modules by the parser's module graph goes through this factory.
const imported = vi.hoisted(() => ({ zod: 0 }));
vi.mock('zod', async (original) => {
  imported.zod++;
  return original();
});

const ctx = { path: 'alice/semantic/x.md', defaultUser: 'alice', fallbackTime: '2024-03-01T10:00:00.000Z' };

describe('parseMemory and zod', () => {
  it('parses valid front matter without importing zod', () => {
    const doc = parseMemory('---\nimportance: 0.7\ntags: [a, b]\ncreated: 2026-12-01\n---\n# Hi\n', ctx);
    expect(doc.meta).toMatchObject({ importance: 0.7, tags: ['a', 'b'], created: '2026-12-01T00:00:00.000Z' });
    expect(imported.zod).toBe(0);
  });

  it('words an invalid value as the schema does, with its line', () => {
    const err = thrown(() => parseMemory('---\ntitle: t\nimportance: 2\n---\nbody\n', ctx), InvalidMemoryError);
    expect([err.line, err.reason]).toEqual([3, 'front matter "importance": Too big: expected number to be <=1 (got 2)']);
  });
});
