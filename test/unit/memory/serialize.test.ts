// Covers serializeMemory: parse(serialize(meta, body)) round-trips every field, extra keys and the body.
import { describe, expect, it } from 'vitest';

import type { MemoryMeta } from '../../../src/memory/model.js';
import { parseMemory } from '../../../src/memory/parse.js';
import { serializeMemory } from '../../../src/memory/serialize.js';

// At the root, so the front matter's user stands (a user folder must agree with it).
const ctx = { path: 'file.md', defaultUser: 'nobody', fallbackTime: '2000-01-01T00:00:00.000Z' };

const full: MemoryMeta = {
  id: '2024-05-01-likes-green-tea-a1b2c3',
  user: 'alice',
  type: 'semantic',
  importance: 0.8,
  status: 'active',
  created: '2024-05-01T09:30:00.000Z',
  updated: '2024-05-02T10:00:00.000Z',
  expires: '2030-12-31T00:00:00.000Z',
  key: 'favourite-drink',
  supersedes: 'alice/semantic/old-drink',
  source: 'chat: 2024-05-01',
  sources: ['a/one', 'b/two'],
  tags: ['tea', 'preferences'],
  confidence: 0.6,
  extra: { title: 'Tea', mood: 'calm', nested: { list: [1, 'two'], flag: true }, 'odd key': 'x: y # not a comment' },
};

describe('serializeMemory', () => {
  it('round-trips every known field and the extra keys', () => {
    const body = '# Drinks\n\nAlice likes green tea.\n';
    const doc = parseMemory(serializeMemory(full, body), ctx);
    expect(doc.meta).toEqual(full);
    expect(doc.body).toBe(body);
  });

  it('round-trips a minimal memory and keeps an empty tag list', () => {
    const meta: MemoryMeta = {
      id: 'x',
      user: 'bob',
      type: 'episodic',
      importance: 0,
      status: 'expired',
      created: '2024-01-01T00:00:00.000Z',
      updated: '2024-01-01T00:00:00.000Z',
      tags: [],
      extra: {},
    };
    const text = serializeMemory(meta, 'Body');
    expect(text).toMatch(/^---\n/);
    expect(text).toContain('tags: []');
    expect(text.endsWith('Body\n')).toBe(true);
    const doc = parseMemory(text, ctx);
    expect(doc.meta).toEqual(meta);
    expect(doc.body).toBe('Body\n');
  });

  it('writes known keys in the documented order, then the extra keys', () => {
    const text = serializeMemory(full, 'b');
    const keys = text
      .split('\n---')[0]!
      .split('\n')
      .filter((l) => /^[A-Za-z'"]/.test(l))
      .map((l) => l.split(':')[0]);
    expect(keys).toEqual([
      'id',
      'user',
      'type',
      'importance',
      'status',
      'created',
      'updated',
      'expires',
      'key',
      'supersedes',
      'source',
      'sources',
      'tags',
      'confidence',
      'title',
      'mood',
      'nested',
      'odd key',
    ]);
  });

  it('omits empty optional lists but keeps the body line numbers consistent', () => {
    const meta: MemoryMeta = { ...full, sources: [] };
    const text = serializeMemory(meta, '# H\n\npara\n');
    expect(text).not.toContain('sources');
    const doc = parseMemory(text, ctx);
    expect(doc.meta.sources).toBeUndefined();
    const lines = text.split('\n');
    expect(lines[doc.bodyStartLine - 1]).toBe('# H');
  });

  it('quotes values that YAML would otherwise misread', () => {
    const meta: MemoryMeta = {
      ...full,
      key: 'yes',
      source: '123',
      extra: { version: '1.0', empty: '', hash: '#not-a-comment', colon: 'a: b' },
    };
    const doc = parseMemory(serializeMemory(meta, 'x'), ctx);
    expect(doc.meta.key).toBe('yes');
    expect(doc.meta.source).toBe('123');
    expect(doc.meta.extra).toEqual({ version: '1.0', empty: '', hash: '#not-a-comment', colon: 'a: b' });
  });

  it('survives a parse -> serialize -> parse cycle of a hand-written file', () => {
    const original = '---\ntitle: Hand written\nuser: carol\ntags: tea, coffee\n---\nSome text\n\n## Later\nmore\n';
    const first = parseMemory(original, ctx);
    const second = parseMemory(serializeMemory(first.meta, first.body), ctx);
    expect(second.meta).toEqual(first.meta);
    expect(second.body).toBe(first.body);
  });
});
