// Covers parseMemory / defaultsFromPath: folder-layout defaults, extra keys, front matter errors with file lines, bodyStartLine.
import { describe, expect, it } from 'vitest';

import { InvalidMemoryError, MisplacedMemoryError } from '../../../src/errors.js';
import { lineOfKey } from '../../../src/memory/front-matter.js';
import { defaultsFromPath, folderUser, frontMatterLine, parseMemory, type ParseContext } from '../../../src/memory/parse.js';
import { thrown } from '../../support/thrown.js';

const TIME = '2024-03-01T10:00:00.000Z';
const ctx = (path: string, defaultUser = 'fallback'): ParseContext => ({ path, defaultUser, fallbackTime: TIME });

function parseError(text: string, path = 'alice/semantic/x.md'): InvalidMemoryError {
  return thrown(() => parseMemory(text, ctx(path)), InvalidMemoryError);
}

describe('defaultsFromPath', () => {
  it('dates a file named by its date from the name, not the fallback time', () => {
    expect(defaultsFromPath(ctx('alice/daily/2026-11-30.md')).time).toBe('2026-11-30T00:00:00.000Z');
    expect(defaultsFromPath(ctx('alice/daily/2026-13-45-notes.md')).time).toBe(TIME);
    expect(defaultsFromPath(ctx('alice/notes.md')).time).toBe(TIME);
  });

  it('takes user and type from <user>/<type>/<name>.md and the id from the path without .md', () => {
    expect(defaultsFromPath(ctx('alice/episodic/trip.md'))).toEqual({
      id: 'alice/episodic/trip',
      user: 'alice',
      type: 'episodic',
      time: TIME,
    });
  });

  it('uses the default user and semantic type for a file at the root', () => {
    expect(defaultsFromPath(ctx('notes.md', 'dana'))).toEqual({ id: 'notes', user: 'dana', type: 'semantic', time: TIME });
  });

  it('treats a daily/ folder as episodic and finds a type folder deeper down', () => {
    expect(defaultsFromPath(ctx('bob/daily/2024-01-01.md')).type).toBe('episodic');
    expect(defaultsFromPath(ctx('bob/projects/procedural/deploy.md')).type).toBe('procedural');
  });

  it('refuses, by path, a first folder that is not a valid user id instead of handing it to the default user', () => {
    for (const path of ['.hidden/semantic/x.md', 'my notes/x.md', ' bob/diary.md']) {
      const err = thrown(() => defaultsFromPath(ctx(path, 'carol')), MisplacedMemoryError);
      expect([err.path, err.line]).toEqual([path, 0]);
      expect(err.reason).toMatch(/is not a valid user id/);
    }
  });

  it('NFC-normalises the folder name, so a decomposed josé/ is the user josé', () => {
    const decomposed = 'jose\u0301';
    expect(defaultsFromPath(ctx(`${decomposed}/diary.md`, 'carol')).user).toBe('jos\u00e9');
    expect(folderUser(`${decomposed}/diary.md`)).toBe('jos\u00e9');
    expect(folderUser('notes.md')).toBeUndefined();
  });

  it('strips .md case-insensitively only at the end', () => {
    expect(defaultsFromPath(ctx('alice/x.md.MD')).id).toBe('alice/x.md');
  });
});

describe('parseMemory', () => {
  it("refuses what the index's fields cannot hold: more than 64 tags (at their line), a path over 1,024 characters", () => {
    const tags = (n: number) => `---\nid: x\ntags: [${Array.from({ length: n }, (_, i) => `t${i}`).join(', ')}]\n---\nbody\n`;
    expect(parseMemory(tags(64), ctx('alice/semantic/x.md')).meta.tags).toHaveLength(64);
    const many = parseError(tags(65));
    expect([many.line, many.message]).toEqual([3, expect.stringContaining('front matter "tags": at most 64 tags')]);
    // Counted in characters (code points), as the index counts them: 1,024 of them fit.
    const fits = `alice/${'é'.repeat(1024 - 'alice/.md'.length)}.md`;
    expect(parseMemory('---\nid: x\n---\nbody\n', ctx(fits)).path).toBe(fits);
    const long = `alice/${'€'.repeat(1100)}.md`;
    const err = parseError('---\nid: x\n---\nbody\n', long);
    expect([err.line, err.message]).toEqual([0, expect.stringContaining(`path is ${1100 + 9} characters, over the 1024 the index holds`)]);
  });

  it('fills every default for a file without front matter', () => {
    const doc = parseMemory('# Trip\n\nWe went to Lisbon.\n', ctx('alice/episodic/trip.md'));
    expect(doc).toEqual({
      path: 'alice/episodic/trip.md',
      meta: {
        id: 'alice/episodic/trip',
        user: 'alice',
        type: 'episodic',
        importance: 0.5,
        status: 'active',
        created: TIME,
        updated: TIME,
        tags: [],
        extra: {},
      },
      body: '# Trip\n\nWe went to Lisbon.\n',
      bodyStartLine: 1,
    });
  });

  it('lets front matter override the folder defaults', () => {
    const text = [
      '---',
      'id: custom-id',
      'user: bob',
      'type: procedural',
      'importance: 0.9',
      'status: superseded',
      'created: 2023-05-01T08:00:00Z',
      'expires: 2030-01-01',
      'key: favourite-tea',
      'supersedes: old/one',
      'source: chat',
      'sources: [a/b, c]',
      'tags: [tea, 42]',
      'confidence: 0.7',
      '---',
      'Body.',
    ].join('\n');
    const { meta } = parseMemory(text, ctx('bob/episodic/x.md'));
    expect(meta).toEqual({
      id: 'custom-id',
      user: 'bob',
      type: 'procedural',
      importance: 0.9,
      status: 'superseded',
      created: '2023-05-01T08:00:00.000Z',
      updated: '2023-05-01T08:00:00.000Z',
      expires: '2030-01-01T00:00:00.000Z',
      key: 'favourite-tea',
      supersedes: 'old/one',
      source: 'chat',
      sources: ['a/b', 'c'],
      tags: ['tea', '42'],
      confidence: 0.7,
      extra: {},
    });
  });

  it('refuses a file whose front matter names another user than its folder, at the user line', () => {
    const err = thrown(() => parseMemory('---\nimportance: 0.4\nuser: erin\n---\nPlanted.\n', ctx('dana/semantic/x.md')), MisplacedMemoryError);
    expect([err.path, err.line]).toEqual(['dana/semantic/x.md', 3]);
    expect(err.reason).toMatch(/names user "erin" but the file is in "dana"'s folder/);
    // The same user, written decomposed, is the folder's user; a file at the root may name anyone.
    expect(parseMemory('---\nuser: jose\u0301\n---\nx', ctx('jos\u00e9/x.md')).meta.user).toBe('jos\u00e9');
    expect(parseMemory('---\nuser: erin\n---\nx', ctx('notes.md')).meta.user).toBe('erin');
  });

  it('reads supersedes as one id or a list', () => {
    expect(parseMemory('---\nsupersedes: a/one\n---\nx', ctx('alice/x.md')).meta.supersedes).toBe('a/one');
    expect(parseMemory('---\nsupersedes: [a/one, two]\n---\nx', ctx('alice/x.md')).meta.supersedes).toEqual(['a/one', 'two']);
    const err = parseError('---\ntags: [x]\nsupersedes: [ok, "../bad"]\n---\nx');
    expect([err.line, err.reason]).toEqual([3, expect.stringMatching(/front matter "supersedes"/)]);
  });

  it('finds the line of a front matter key for link errors', () => {
    expect(frontMatterLine('---\nid: a\nsupersedes: b\n---\nbody', 'supersedes')).toBe(3);
    expect(frontMatterLine('no front matter', 'supersedes')).toBe(1);
  });

  it('accepts a numeric id and comma-separated tags', () => {
    const { meta } = parseMemory('---\nid: 12345\ntags: " a, b ,, c "\n---\nx', ctx('x.md'));
    expect(meta.id).toBe('12345');
    expect(meta.tags).toEqual(['a', 'b', 'c']);
  });

  it('keeps unknown keys in meta.extra, untouched', () => {
    const text = '---\ntitle: My note\nmood: happy\nnested:\n  a: 1\n  b: [x, y]\nimportance: 0.2\n---\nbody';
    const { meta } = parseMemory(text, ctx('alice/x.md'));
    expect(meta.importance).toBe(0.2);
    expect(meta.extra).toEqual({ title: 'My note', mood: 'happy', nested: { a: 1, b: ['x', 'y'] } });
  });

  it('treats null optional fields as absent', () => {
    const { meta } = parseMemory('---\nexpires: null\nkey: ~\ntags: null\nconfidence: null\n---\nb', ctx('x.md'));
    expect(meta.expires).toBeUndefined();
    expect(meta.key).toBeUndefined();
    expect(meta.confidence).toBeUndefined();
    expect(meta.tags).toEqual([]);
  });

  it('reports malformed YAML on the file line where the parser stopped', () => {
    // File lines: 1 "---", 2 "title: ok", 3 "a: 1", 4 "  b: 2" (bad indentation), 5 "---".
    const err = parseError('---\ntitle: ok\na: 1\n  b: 2\n---\nbody', 'alice/bad.md');
    expect(err.path).toBe('alice/bad.md');
    expect(err.reason).toMatch(/malformed YAML/);
    expect(err.line).toBe(4);
  });

  it('reports a missing comma in a flow list on the line where it was detected', () => {
    // File lines: 1 "---", 2 "a: 1", 3 "b: [1, 2", 4 "c: 3" (js-yaml notices the missing comma here).
    const err = parseError('---\na: 1\nb: [1, 2\nc: 3\nd: 4\n---\nx');
    expect(err.reason).toMatch(/malformed YAML/);
    expect(err.line).toBe(4);
  });

  it('points a wrongly typed importance at the importance line', () => {
    // File lines: 1 "---", 2 "id: x", 3 "importance: high".
    const err = parseError('---\nid: x\nimportance: high\n---\nbody');
    expect(err.reason).toMatch(/"importance"/);
    expect(err.reason).toContain('"high"');
    expect(err.line).toBe(3);
  });

  it('points a list-valued user at the user line', () => {
    // File lines: 1 "---", 2 "id: x", 3 "tags: [a]", 4 "user: [a, b]".
    const err = parseError('---\nid: x\ntags: [a]\nuser: [a, b]\n---\nbody');
    expect(err.reason).toMatch(/"user"/);
    expect(err.line).toBe(4);
  });

  it('points an invalid key on the first front matter line at line 2', () => {
    const err = parseError('---\nimportance: 7\n---\nbody');
    expect(err.reason).toMatch(/"importance"/);
    expect(err.line).toBe(2);
  });

  it('rejects invalid values of known keys', () => {
    expect(parseError('---\ntype: feelings\n---\nb').reason).toMatch(/"type"/);
    expect(parseError('---\nstatus: gone\n---\nb').reason).toMatch(/"status"/);
    expect(parseError('---\ncreated: not a date\n---\nb').reason).toMatch(/"created".*not a date/);
    expect(parseError('---\nid: ../escape\n---\nb').reason).toMatch(/"id"/);
    expect(parseError('---\nuser: "u\\" or user == \\"v"\n---\nb').reason).toMatch(/"user"/);
    expect(parseError('---\ntags: [\'say "hi"\']\n---\nb').reason).toMatch(/"tags"/);
    expect(parseError('---\nconfidence: 2\n---\nb').reason).toMatch(/"confidence"/);
  });

  it('rejects front matter that is not a mapping', () => {
    for (const text of ['---\n- a\n- b\n---\nbody', '---\njust a string\n---\nbody', '---\n42\n---\nbody']) {
      const err = parseError(text);
      expect(err.line).toBe(1);
      expect(err.reason).toMatch(/mapping/);
    }
  });

  it('computes bodyStartLine after the closing fence', () => {
    const doc = parseMemory('---\nuser: bob\ntype: semantic\n---\n# Heading\ntext', ctx('x.md'));
    expect(doc.body).toBe('# Heading\ntext');
    expect(doc.bodyStartLine).toBe(5);
  });

  it('counts a blank line after the fence as part of the body', () => {
    const doc = parseMemory('---\nuser: bob\n---\n\n# H\ntext', ctx('x.md'));
    expect(doc.body).toBe('\n# H\ntext');
    expect(doc.bodyStartLine).toBe(4);
  });

  it('handles empty front matter', () => {
    const doc = parseMemory('---\n---\nbody', ctx('alice/x.md'));
    expect(doc.body).toBe('body');
    expect(doc.bodyStartLine).toBe(3);
    expect(doc.meta.user).toBe('alice');
  });

  it('starts the body on line 1 without front matter', () => {
    const doc = parseMemory('plain text\nsecond line', ctx('x.md'));
    expect(doc.bodyStartLine).toBe(1);
    expect(doc.body).toBe('plain text\nsecond line');
  });
});

describe('lineOfKey', () => {
  it('maps a top-level key of the front matter block (lines after the opening fence) to its file line', () => {
    expect(lineOfKey('id: x\nuser: bob', 'id')).toBe(2);
    expect(lineOfKey('id: x\nuser: bob', 'user')).toBe(3);
    expect(lineOfKey("id: x\n'user': bob", 'user')).toBe(3);
  });

  it('ignores nested keys and keys that merely share a prefix', () => {
    expect(lineOfKey('idx: 1\nmeta:\n  id: 2\nid: 3', 'id')).toBe(5);
  });

  it('falls back to line 1 for a key it cannot find', () => {
    expect(lineOfKey('id: x', 'missing')).toBe(1);
  });
});
