// Covers hash.ts and records.ts: content-derived chunk ids (stable across edits elsewhere), occurrences, record fields, NO_EXPIRY.
import { describe, expect, it } from 'vitest';

import { chunkId, sha256, textHash } from '../../../src/memory/hash.js';
import { parseMemory } from '../../../src/memory/parse.js';
import { NO_EXPIRY, toChunkRecords } from '../../../src/memory/records.js';

const CHUNKING = { maxChars: 80 };
const parse = (text: string, path = 'alice/semantic/notes.md') => parseMemory(text, { path, defaultUser: 'd', fallbackTime: '2024-01-01T00:00:00.000Z' });

const paragraphs = [
  'Alice likes green tea in the morning, always.',
  'She is allergic to peanuts and to shellfish.',
  'Her favourite city is Lisbon, visited twice.',
  'She works on distributed databases at a startup.',
];

describe('hash', () => {
  it('sha256 is the hex digest of the text or bytes', () => {
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256(new TextEncoder().encode('abc'))).toBe(sha256('abc'));
  });

  it('chunkId is a 32-hex digest of path, text and occurrence', () => {
    const id = chunkId('a.md', 'text', 0);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(chunkId('a.md', 'text', 0)).toBe(id);
    expect(chunkId('b.md', 'text', 0)).not.toBe(id);
    expect(chunkId('a.md', 'text!', 0)).not.toBe(id);
    expect(chunkId('a.md', 'text', 1)).not.toBe(id);
  });

  it('chunkId separates path and text unambiguously', () => {
    expect(chunkId('ab', 'c', 0)).not.toBe(chunkId('a', 'bc', 0));
  });

  it('textHash depends on the text only', () => {
    expect(textHash('hello')).toBe(sha256('hello'));
    expect(textHash('hello')).not.toBe(textHash('hello '));
  });
});

describe('toChunkRecords', () => {
  it('derives one record per chunk with the memory fields', () => {
    const doc = parse('---\nimportance: 0.9\ntags: [tea]\ncreated: 2024-02-03T04:05:06Z\n---\n# Tea\n\nGreen.\n');
    const [rec, ...rest] = toChunkRecords(doc, { maxChars: 1500 });
    expect(rest).toEqual([]);
    expect(rec).toEqual({
      chunkId: chunkId('alice/semantic/notes.md', '# Tea\n\nGreen.', 0),
      kind: 'unit',
      textHash: textHash('# Tea\n\nGreen.'),
      memoryId: 'alice/semantic/notes',
      user: 'alice',
      type: 'semantic',
      status: 'active',
      importance: 0.9,
      created: Date.parse('2024-02-03T04:05:06Z'),
      updated: Date.parse('2024-02-03T04:05:06Z'),
      expires: NO_EXPIRY,
      path: 'alice/semantic/notes.md',
      heading: 'Tea',
      lineStart: 6,
      lineEnd: 8,
      tags: ['tea'],
      content: '# Tea\n\nGreen.',
    });
  });

  it('uses NO_EXPIRY (9999-12-31T23:59:59Z) when there is no expiry, and the epoch ms otherwise', () => {
    expect(NO_EXPIRY).toBe(Date.parse('9999-12-31T23:59:59Z'));
    expect(toChunkRecords(parse('text'), CHUNKING)[0]!.expires).toBe(NO_EXPIRY);
    const expiring = toChunkRecords(parse('---\nexpires: 2031-06-01T00:00:00Z\n---\ntext'), CHUNKING);
    expect(expiring[0]!.expires).toBe(Date.parse('2031-06-01T00:00:00Z'));
  });

  it('content carries the heading path of split sections', () => {
    const recs = toChunkRecords(parse(`# Facts\n\n${paragraphs.join('\n\n')}`), CHUNKING);
    expect(recs.map((r) => r.heading)).toEqual(['Facts', 'Facts', 'Facts', 'Facts']);
    // The first piece starts with the heading itself; later pieces get the heading path prefixed.
    expect(recs[0]!.content).toBe(`# Facts\n\n${paragraphs[0]}`);
    expect(recs[1]!.content).toBe(`Facts\n\n${paragraphs[1]}`);
    expect(recs[3]!.content).toBe(`Facts\n\n${paragraphs[3]}`);
  });

  it('editing one paragraph changes only that chunk id; the others keep theirs', () => {
    const before = toChunkRecords(parse(paragraphs.join('\n\n')), CHUNKING);
    const edited = [...paragraphs];
    edited[1] = 'She is allergic to peanuts only, not shellfish.';
    const after = toChunkRecords(parse(edited.join('\n\n')), CHUNKING);
    expect(before).toHaveLength(4);
    expect(after).toHaveLength(4);
    const changed = before.map((r, i) => r.chunkId !== after[i]!.chunkId);
    expect(changed).toEqual([false, true, false, false]);
    const changedHash = before.map((r, i) => r.textHash !== after[i]!.textHash);
    expect(changedHash).toEqual([false, true, false, false]);
  });

  it('inserting lines above a chunk moves its lines but keeps its id', () => {
    const before = toChunkRecords(parse(paragraphs.join('\n\n')), CHUNKING);
    const after = toChunkRecords(parse(['A brand new first paragraph, inserted above.', ...paragraphs].join('\n\n')), CHUNKING);
    expect(after.slice(1).map((r) => r.chunkId)).toEqual(before.map((r) => r.chunkId));
    expect(after[1]!.lineStart).toBe(before[0]!.lineStart + 2);
  });

  it('gives identical paragraphs in one file distinct ids but the same text hash', () => {
    const same = 'The same sentence, repeated in the file word for word.';
    const recs = toChunkRecords(parse([same, 'Something between them, different.', same].join('\n\n')), CHUNKING);
    expect(recs).toHaveLength(3);
    expect(recs[0]!.content).toBe(recs[2]!.content);
    expect(recs[0]!.chunkId).not.toBe(recs[2]!.chunkId);
    expect(recs[0]!.textHash).toBe(recs[2]!.textHash);
    expect(new Set(recs.map((r) => r.chunkId)).size).toBe(3);
  });

  it('gives identical sections under the same heading distinct ids', () => {
    const recs = toChunkRecords(parse('# Notes\n\nsame\n\n# Notes\n\nsame'), { maxChars: 1500 });
    expect(recs.map((r) => r.content)).toEqual(['# Notes\n\nsame', '# Notes\n\nsame']);
    expect(recs[0]!.chunkId).not.toBe(recs[1]!.chunkId);
  });

  it('the same text in two files gets different ids', () => {
    const a = toChunkRecords(parse('shared text', 'alice/a.md'), CHUNKING);
    const b = toChunkRecords(parse('shared text', 'alice/b.md'), CHUNKING);
    expect(a[0]!.chunkId).not.toBe(b[0]!.chunkId);
    expect(a[0]!.textHash).toBe(b[0]!.textHash);
  });

  it('yields no records for a memory with an empty body', () => {
    expect(toChunkRecords(parse('---\nuser: alice\n---\n'), CHUNKING)).toEqual([]);
  });
});
