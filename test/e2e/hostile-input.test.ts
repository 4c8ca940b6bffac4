// Bad files, secrets and injection attempts through the real `bin/mem`: clear errors with path and line,
// documented exit codes, the other files still indexed, nothing modified, no search widened.
import { mkdir, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { runMem } from '../support/harness.js';
import { snapshot } from '../support/sync-fixture.js';

const enc = (s: string) => new TextEncoder().encode(s);

const FILES: Record<string, string | Uint8Array> = {
  'alice/semantic/tea.md': 'Alice drinks sencha green tea every morning.\n',
  'bob/semantic/bike.md': 'Bob keeps his racing bike in the cellar.\n',
  'bad/yaml.md': '---\nid: x\ntags: [a, b\n---\nbody\n',
  'bad/importance.md': '---\nimportance: high\n---\nbody\n',
  'bad/user-list.md': '---\nuser: [alice, bob]\n---\nbody\n',
  'bad/binary.md': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]),
  'bad/utf8.md': new Uint8Array([...enc('ok\n'), 0xff, 0xfe, ...enc(' rest\n')]),
  'edge/empty.md': '',
  'carol/bom-crlf.md': new Uint8Array([0xef, 0xbb, 0xbf, ...enc('---\r\nuser: carol\r\n---\r\nCarol plays the cello on Sundays.\r\n')]),
  'edge/nested.md': `# Deep\n\n${Array.from({ length: 400 }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n')}\n`,
  'edge/long-line.md': 'tea '.repeat(20_000),
};

const EXPECTED_ERRORS = [
  { path: 'bad/binary.md', line: 3, message: expect.stringMatching(/binary/) },
  { path: 'bad/huge.md', line: 1, message: 'file is 20.0 MB, over the 5.0 MB limit: skipped' },
  { path: 'bad/importance.md', line: 2, message: expect.stringMatching(/importance/) },
  { path: 'bad/loop.md', line: 0, message: 'symbolic link loop: skipped' },
  { path: 'bad/user-list.md', line: 2, message: expect.stringMatching(/user/) },
  { path: 'bad/utf8.md', line: 2, message: 'invalid UTF-8' },
  { path: 'bad/yaml.md', line: 4, message: expect.stringMatching(/malformed YAML/) },
];

describe('hostile input through mem', () => {
  let root: string;

  beforeAll(async () => {
    root = await e2eRoot(FILES, 'memdir-e2e-hostile-');
    await writeFile(join(root, 'bad/huge.md'), '# huge\n');
    await truncate(join(root, 'bad/huge.md'), 20 * 1024 * 1024);
    await symlink('loop.md', join(root, 'bad/loop.md'));
  });
  afterAll(async () => {
    await disposeE2eRoot(root);
  });

  it('reindex names every bad file with its line, exits 1, indexes the rest and modifies nothing', async () => {
    const before = await snapshot(root);
    const re = await runMem(['reindex', '--json'], { root });
    expect(re.code).toBe(1);
    expect([...re.json.errors].sort((a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path))).toEqual(EXPECTED_ERRORS);
    expect(re.json.files).toBe(Object.keys(FILES).length + 1); // the symlink loop is reported, not counted

    const human = await runMem(['reindex'], { root });
    expect(human.code).toBe(1);
    expect(human.stdout).toContain('error: bad/importance.md:2: front matter "importance"');
    expect(human.stderr.trim()).toBe(`mem: ${EXPECTED_ERRORS.length} problem(s) in the files named above; the other files are indexed`);

    const tea = await runMem(['search', 'green tea', '--user', 'alice', '--json'], { root });
    expect(tea.json.results[0].path).toBe('alice/semantic/tea.md');
    const cello = await runMem(['search', 'which instrument', '--user', 'carol', '--json'], { root });
    expect(cello.json.results.map((r: { path: string }) => r.path)).toEqual(['carol/bom-crlf.md']);
    const nested = await runMem(['search', 'level 399', '--all-users', '--mode', 'bm25', '--json'], { root });
    expect(nested.json.results[0].path).toBe('edge/nested.md');
    expect(await snapshot(root)).toEqual(before);
  });

  it("values longer than the index's fields hold refuse their file by path and line (or are cut), never the whole sync", async () => {
    // 70 tags, a 3,000-character heading, and a 1,263-character path: each once failed every write of the sync
    // ("Milvus insert failed: … exceeds max_length"), so no file of the root was indexed and `mem watch` stopped.
    const deep = `kim/${Array.from({ length: 5 }, (_, i) => String(i).repeat(250)).join('/')}/a.md`;
    const own = await e2eRoot(
      {
        'kim/semantic/ok.md': 'Kim keeps bees on the roof.\n',
        'kim/semantic/tags.md': `---\ntags: [${Array.from({ length: 70 }, (_, i) => `t${i}`).join(', ')}]\n---\nKim labels every jar.\n`,
        'kim/semantic/heading.md': `# ${'pottery '.repeat(375)}\n\nKim throws pots on a wheel under a very long heading.\n`,
        [deep]: '---\nid: kim-deep\n---\nKim keeps a note about walnuts in a deep folder.\n',
      },
      'memdir-e2e-long-values-',
    );
    try {
      const re = await runMem(['reindex', '--json'], { root: own });
      expect(re.code, re.stdout).toBe(1);
      const errors = [...re.json.errors].sort((a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path));
      expect(errors).toEqual([
        { path: deep, line: 0, message: `path is ${deep.length} characters, over the 1024 the index holds: not indexed; shorten its folders or its name` },
        { path: 'kim/semantic/tags.md', line: 2, message: expect.stringMatching(/^front matter "tags": at most 64 tags/) },
      ]);
      expect(re.json.files).toBe(4);
      const bees = await runMem(['search', 'bees on the roof', '--user', 'kim', '--json'], { root: own });
      expect(bees.json.results[0].path).toBe('kim/semantic/ok.md');
      // The heading is kept up to what the index holds; the unit is found by its words.
      const pots = await runMem(['search', 'throws pots on a wheel', '--user', 'kim', '--mode', 'bm25', '--json'], { root: own });
      expect(pots.json.results[0].path).toBe('kim/semantic/heading.md');
      expect(pots.json.results[0].heading).toHaveLength(2048);
      expect(pots.json.results[0].heading.startsWith('pottery pottery')).toBe(true);
    } finally {
      await disposeE2eRoot(own);
    }
  });

  it('mem add refuses a secret with exit 2 and says why, unless --allow-secrets', async () => {
    const key = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
    const refused = await runMem(['add', `The deploy token is ${key}`, '--user', 'alice', '--json'], { root });
    expect(refused.code).toBe(2);
    expect(refused.json.error.code).toBe('USAGE');
    expect(refused.json.error.message).toMatch(/GitHub Token on line 1 .*--allow-secrets/);
    expect(refused.stdout).not.toContain(key);
    const human = await runMem(['add', 'db: postgres://app:hunter2pass@db.internal/prod', '--user', 'alice'], { root });
    expect(human.code).toBe(2);
    expect(human.stderr).toContain('PostgreSQL connection string on line 1 (postgres://app:****@db.internal');
    const allowed = await runMem(['add', `The deploy token is ${key}`, '--user', 'alice', '--allow-secrets', '--json'], { root });
    expect(allowed.code).toBe(0);
  });

  it('hostile users, tags and ids are refused (exit 2) or escaped, and never widen a search', async () => {
    await mkdir(join(root, 'mallory'), { recursive: true });
    const add = await runMem(['add', 'Mallory hides the spare key under the doormat', '--user', 'mallory', '--tags', 'home', '--json'], { root });
    expect(add.code).toBe(0);
    for (const user of ['alice" or user != "x', 'alice\\', '../alice', '/etc/passwd', 'a'.repeat(5000), 'alice\nbob']) {
      const res = await runMem(['search', 'spare key', '--user', user, '--json'], { root });
      expect(res.code).toBe(2);
      expect(res.json.error.code).toBe('USAGE');
    }
    for (const tags of ['home" or user != "x', 'home\\,") or (user != "']) {
      const res = await runMem(['search', 'spare key', '--user', 'alice', '--tags', tags, '--json'], { root });
      expect(res.code).toBe(0);
      expect(res.json.results).toEqual([]);
    }
    const hostileQuery = await runMem(['search', '" or user != "alice', '--user', 'alice', '--json'], { root });
    expect(hostileQuery.code).toBe(0);
    expect(hostileQuery.json.results.every((r: { user: string }) => r.user === 'alice')).toBe(true);
    const badTag = await runMem(['add', 'x', '--user', 'alice', '--tags', 'a"b'], { root });
    expect(badTag.code).toBe(2);
    for (const id of ['/etc/passwd', 'a/../../b']) {
      expect((await runMem(['forget', id], { root })).code).toBe(2);
    }
    const mine = await runMem(['search', 'spare key', '--user', 'mallory', '--tags', 'home', '--json'], { root });
    expect(mine.json.results.map((r: { id: string }) => r.id)).toEqual([add.json.id]);
  });
});
