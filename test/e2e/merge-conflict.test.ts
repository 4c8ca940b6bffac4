// A git merge that leaves conflict markers in a memory file, with the real `bin/mem`, git, Milvus Lite and model: the
// file is reported by path and line, its last good version stays what a search finds (never both sides, never the
// marker lines), and once the person resolves it the index follows.
import { execFileSync } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runMem } from '../support/harness.js';
import { tempRoot } from '../support/temp-root.js';

const HOME = 'ann/semantic/home.md';
const QUERY = 'which city does Ann live in';

describe('a merge conflict left in a memory file', () => {
  let root: string;
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: root, stdio: 'pipe' }).toString();
  const contents = async () =>
    (await runMem(['search', QUERY, '-u', 'ann', '--json'], { root })).json.results.map((r: { content: string }) => r.content).join('\n');

  beforeAll(async () => {
    root = await tempRoot(
      {
        [HOME]: '---\nid: home\n---\nAnn lives in Lyon.\n',
        'ann/semantic/tea.md': '---\nid: tea\n---\nAnn drinks green tea every morning.\n',
      },
      'memdir-e2e-conflict-',
    );
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-qm', 'start');
    git('checkout', '-q', '-b', 'other');
    await writeFile(join(root, HOME), '---\nid: home\n---\nAnn lives in Hamburg.\n');
    git('commit', '-qam', 'hamburg');
    git('checkout', '-q', 'main');
    await writeFile(join(root, HOME), '---\nid: home\n---\nAnn lives in Paris.\n');
    git('commit', '-qam', 'paris');
    expect((await runMem(['reindex', '--json'], { root })).code).toBe(0);
    expect(await contents()).toContain('Paris');
  });
  afterAll(async () => {
    await runMem(['server', 'stop'], { root });
    await rm(root, { recursive: true, force: true });
  });

  it('is reported by path and line, and the last good version stays the one found', async () => {
    // As in a clone no mem command ran in yet: no merge driver, git's own conflict markers.
    git('config', '--remove-section', 'merge.memdir');
    expect(() => git('merge', 'other')).toThrow();
    const conflicted = await readFile(join(root, HOME), 'utf8');
    expect(conflicted).toContain('<<<<<<< HEAD');

    const sync = await runMem(['reindex', '--json'], { root });
    expect(sync.code).toBe(1);
    expect(sync.json.errors).toEqual([{ path: HOME, line: 4, message: expect.stringMatching(/merge conflict/) }]);
    const found = await contents();
    expect(found).toContain('Ann lives in Paris.');
    expect(found).not.toContain('Hamburg');
    expect(found).not.toContain('<<<<<<<');

    const doctor = await runMem(['doctor', '--json'], { root });
    expect(doctor.code).toBe(1);
    expect(doctor.json.problems).toContainEqual(expect.objectContaining({ kind: 'invalid-file', path: HOME, line: 4 }));
    // Read, never written: the file is as git left it.
    expect(await readFile(join(root, HOME), 'utf8')).toBe(conflicted);
  });

  it('once resolved, the index follows', async () => {
    await writeFile(join(root, HOME), '---\nid: home\n---\nAnn lives in Hamburg.\n');
    const sync = await runMem(['reindex', '--json'], { root });
    expect(sync.code).toBe(0);
    const found = await contents();
    expect(found).toContain('Hamburg');
    expect(found).not.toContain('Paris');
  });
});
