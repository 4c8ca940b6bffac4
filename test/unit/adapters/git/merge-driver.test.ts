// Covers the merge driver's registration in a real (temporary) git repository: what it writes into the clone's git
// folder, that a second opening writes nothing and a person's own attribute lines stay, and when the index must
// follow git (anything but memdir's own commits here).
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { attributesLine, changedSince, driverCommand, setUpMergeDriver } from '../../../../src/adapters/git/merge-driver.js';

describe('merge driver registration', () => {
  let dir: string;
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();
  const command = driverCommand("/opt/node's/bin/node", '/usr/lib/memdir/bin/mem-merge-file.js');

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'memdir-unit-driver-'));
    git('init', '-q', '-b', 'main');
    git('commit', '-q', '--allow-empty', '-m', 'start');
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('writes the attribute and the driver once, beside a person’s own attribute lines', async () => {
    await mkdir(join(dir, '.git', 'info'), { recursive: true });
    await writeFile(join(dir, '.git', 'info', 'attributes'), '*.png binary');
    const first = await setUpMergeDriver(join(dir, 'memories'), command);
    expect(first.wrote).toEqual(['config', 'info/attributes']);
    expect(await readFile(join(dir, '.git', 'info', 'attributes'), 'utf8')).toBe('*.png binary\n/memories/**/*.md merge=memdir\n');
    expect(git('config', '--get', 'merge.memdir.driver')).toBe(`'/opt/node'\\''s/bin/node' '/usr/lib/memdir/bin/mem-merge-file.js' %O %A %B %P`);
    expect(git('check-attr', 'merge', '--', 'memories/ann/semantic/x.md')).toContain('merge: memdir');
    expect(git('check-attr', 'merge', '--', 'README.md')).toContain('merge: unspecified');
    expect((await setUpMergeDriver(join(dir, 'memories'), command)).wrote).toEqual([]);
    expect(git('status', '--porcelain')).toBe(''); // nothing in the work tree, nothing committed
  });

  it('escapes glob characters of a root’s path and refuses one a pattern cannot hold', () => {
    expect(attributesLine('')).toBe('*.md merge=memdir');
    expect(attributesLine('notes[1]')).toBe('/notes\\[1\\]/**/*.md merge=memdir');
    expect(attributesLine('my notes')).toBeUndefined();
  });

  it('asks the index to follow git after anything but memdir’s own commits', async () => {
    const seen = git('rev-parse', 'HEAD');
    git('commit', '-q', '--allow-empty', '-m', 'memdir: ADD ann');
    expect(await changedSince(dir, seen, git('rev-parse', 'HEAD'))).toBe(false);
    git('commit', '-q', '--allow-empty', '-m', 'memdir: INGEST ann (picked)');
    git('checkout', '-q', '-b', 'other', 'HEAD~1');
    git('cherry-pick', '--allow-empty', 'main');
    expect(await changedSince(dir, seen, git('rev-parse', 'HEAD'))).toBe(true);
    git('checkout', '-q', 'main');
    const now = git('rev-parse', 'HEAD');
    git('commit', '-q', '--allow-empty', '-m', 'a person’s commit');
    expect(await changedSince(dir, now, git('rev-parse', 'HEAD'))).toBe(true);
  });
});

describe('versions the driver kept', () => {
  let dir: string;
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'memdir-unit-kept-'));
    git('init', '-q', '-b', 'main');
    await mkdir(join(dir, 'ann'), { recursive: true });
    await writeFile(join(dir, 'ann', 'home.md'), '---\nsupersedes: home.0badc0de\n---\nBerlin\n');
    await writeFile(join(dir, 'ann', 'home.0badc0de.md'), '---\nstatus: superseded\n---\nParis\n');
    await writeFile(join(dir, 'ann', 'tea.1234abcd.md'), '---\nstatus: superseded\n---\nGreen\n');
    await writeFile(join(dir, 'ann', 'tea.md'), '---\n---\nBlack\n');
    git('add', 'ann/home.md', 'ann/tea.md');
    git('commit', '-qm', 'start');
    await writeFile(join(dir, '.git', 'memdir-kept'), 'ann/home.0badc0de.md\nann/tea.1234abcd.md\n');
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('are listed for a commit while the merged file supersedes them, and dropped when the merge was aborted', async () => {
    const setup = await setUpMergeDriver(dir, driverCommand('/usr/bin/node', '/x/mem-merge-file.js'));
    expect(setup.kept).toEqual(['ann/home.0badc0de.md']);
    expect(git('status', '--porcelain', '--untracked-files=all')).toBe('?? ann/home.0badc0de.md');
  });
});
