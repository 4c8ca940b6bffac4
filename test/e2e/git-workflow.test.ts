// A memory folder in a person's git workflow, with the real `bin/mem`, git, Milvus Lite and model: a memory file git
// ignores is named by `mem doctor` (outside the audit trail) and never force-added; a fresh clone rebuilds its own index.
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { serverLayout } from '../../src/memory/layout.js';
import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { runMem } from '../support/harness.js';

interface Problem {
  kind: string;
  path?: string;
  detail: string;
  fixable: boolean;
}

describe('a memory folder in a git workflow', () => {
  let root: string;
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: root, encoding: 'utf8' });

  beforeAll(async () => {
    root = await e2eRoot(
      {
        'ann/semantic/tea.md': '---\nid: tea\n---\nAnn drinks green tea every morning.\n',
        'ann/semantic/diary.md': '---\nid: diary\n---\nAnn keeps a private diary about her garden.\n',
        '.gitignore': 'ann/semantic/diary.md\n',
      },
      'memdir-e2e-gitflow-',
    );
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-qm', 'start');
    expect((await runMem(['reindex', '--json'], { root })).code).toBe(0);
  });
  afterAll(async () => {
    await disposeE2eRoot(root);
  });

  it('doctor names a memory file git ignores, with how to un-ignore it, and --fix does not force-add it', async () => {
    const found = await runMem(['doctor', '--json'], { root });
    expect(found.code).toBe(1);
    const ignored = found.json.problems.filter((p: Problem) => p.kind === 'ignored');
    expect(ignored).toEqual([{ kind: 'ignored', path: 'ann/semantic/diary.md', detail: expect.stringContaining('git check-ignore -v'), fixable: false }]);

    const fixed = await runMem(['doctor', '--fix', '--json'], { root });
    expect(fixed.code).toBe(1);
    expect(fixed.json.problems.map((p: Problem) => p.kind)).toEqual(['ignored']);
    expect(git('ls-files', '--', 'ann/semantic/diary.md')).toBe('');

    const text = await runMem(['doctor'], { root });
    expect(text.stdout + text.stderr).toContain('ann/semantic/diary.md');
  });

  it('a memory file in an ignored folder is named too; .mem/ state never shows up in git', async () => {
    await mkdir(join(root, 'ann/private'), { recursive: true });
    await writeFile(join(root, 'ann/private/pin.md'), 'Ann keeps her bike lock code here.\n');
    await writeFile(join(root, '.gitignore'), 'ann/semantic/diary.md\nprivate/\n');
    git('commit', '-qam', 'ignore private folders');
    const found = await runMem(['doctor', '--json'], { root });
    const paths = found.json.problems.filter((p: Problem) => p.kind === 'ignored').map((p: Problem) => p.path);
    expect(paths.sort()).toEqual(['ann/private/pin.md', 'ann/semantic/diary.md']);
    expect(git('status', '--porcelain', '--untracked-files=all')).not.toContain('.mem');
  });

  it('mem add into a folder git ignores writes and indexes the memory, commits nothing and never force-adds it', async () => {
    await writeFile(join(root, '.gitignore'), 'ann/semantic/diary.md\nprivate/\ncarol/\n');
    git('commit', '-qam', 'ignore carol');
    const head = git('rev-parse', 'HEAD');
    const add = await runMem(['add', 'Carol keeps her passport in the blue drawer', '--user', 'carol', '--key', 'passport', '--json'], { root });
    expect(add.stderr).toBe('');
    expect(add.code).toBe(0);
    expect(await readFile(join(root, add.json.path), 'utf8')).toContain('blue drawer');
    const found = await runMem(['search', 'where is the passport', '--user', 'carol', '--json'], { root });
    expect(found.json.results[0].content).toContain('blue drawer');
    // A keyed correction rewrites the ignored file too (its back link): still nothing committed.
    const again = await runMem(['add', 'Carol keeps her passport in the safe', '--user', 'carol', '--key', 'passport', '--json'], { root });
    expect(again.json.action).toBe('SUPERSEDE');
    expect(git('rev-parse', 'HEAD')).toBe(head);
    expect(git('ls-files', '--', 'carol')).toBe('');
  });

  it('git clean -fdx of the ignored .mem/: the index of the earlier id is dropped, so a forget leaves no copy in the servers', async () => {
    const add = await runMem(['add', 'Ann hides the spare key under the blue flowerpot by the shed', '--user', 'ann', '--json'], { root });
    expect(add.code).toBe(0);
    git('clean', '-fdxq', '--', '.mem');
    const found = await runMem(['search', 'where is the spare key', '--user', 'ann', '--json'], { root });
    expect(found.json.results[0].content).toContain('blue flowerpot');
    const status = await runMem(['server', 'status', '--json'], { root });
    const mine = status.json.roots.filter((r: { root: string }) => r.root === root);
    expect(mine.map((r: { state: string }) => r.state)).toEqual(['active']);
    const forgot = await runMem(['forget', add.json.id, '--json'], { root });
    expect(forgot.json.verified.stateHits).toEqual([]);
    const data = serverLayout(process.env.MEMDIR_SERVER_HOME!).milvusData;
    // grep exits 1 when no file holds it.
    const holding = execFileSync('sh', ['-c', 'grep -rlF "blue flowerpot" "$0" || true', data], { encoding: 'utf8' }).trim();
    expect(holding).toBe('');
  });

  it("an editor's lock and backup files beside a memory are no problem for reindex or doctor", async () => {
    await symlink('person@host.4242:1700000000', join(root, 'ann/semantic/.#tea.md')); // Emacs, while a buffer is modified
    await writeFile(join(root, 'ann/semantic/tea.md~'), 'an Emacs backup\n');
    await writeFile(join(root, 'ann/semantic/.tea.md.swp'), 'a vim swap file\n');
    const re = await runMem(['reindex', '--json'], { root });
    expect(re.json.errors).toEqual([]);
    const found = await runMem(['doctor', '--json'], { root });
    expect(found.json.problems.filter((p: Problem) => p.path?.includes('tea.md'))).toEqual([]);
    await rm(join(root, 'ann/semantic/.#tea.md'));
    await rm(join(root, 'ann/semantic/tea.md~'));
    await rm(join(root, 'ann/semantic/.tea.md.swp'));
  });

  it('during a merge with a conflicted memory, doctor --fix neither stages nor commits it, and mem add leaves the merge alone', async () => {
    const TEA = join(root, 'ann/semantic/tea.md');
    git('checkout', '-q', '-b', 'other');
    await writeFile(TEA, '---\nid: tea\n---\nAnn drinks black tea every morning.\n');
    git('commit', '-qam', 'black');
    git('checkout', '-q', 'main');
    await writeFile(TEA, '---\nid: tea\n---\nAnn drinks mint tea every morning.\n');
    git('commit', '-qam', 'mint');
    // As in a clone no mem command ran in yet: no merge driver, git's own conflict markers.
    git('config', '--remove-section', 'merge.memdir');
    expect(() => git('merge', 'other')).toThrow();
    const unmerged = git('ls-files', '-u');
    expect(unmerged).toContain('ann/semantic/tea.md');

    const fixed = await runMem(['doctor', '--fix', '--json'], { root });
    expect(fixed.code).toBe(1);
    const tea = fixed.json.problems.filter((p: Problem) => p.path === 'ann/semantic/tea.md');
    expect(tea.map((p: Problem) => [p.kind, p.fixable])).toEqual([
      ['invalid-file', false],
      ['unmerged', false],
    ]);
    expect(git('ls-files', '-u')).toBe(unmerged); // still a conflict for git: no markers staged as a resolution
    const status = await runMem(['status', '--json'], { root });
    expect(status.json.drift.invalid).toEqual([{ path: 'ann/semantic/tea.md', line: 4, message: expect.stringContaining('unresolved merge conflict') }]);
    expect(status.json.drift.changed).not.toContain('ann/semantic/tea.md');

    const add = await runMem(['add', 'Ann waters the garden on Sundays', '--user', 'ann', '--json'], { root });
    expect(add.code).toBe(1);
    expect(add.json.error.message).toMatch(/nothing committed: a git merge is in progress/);
    expect(git('status', '--porcelain', '--untracked-files=all', '--', 'ann')).not.toMatch(/garden|waters/); // the add put its file back
    expect(git('ls-files', '-u')).toBe(unmerged);
    git('merge', '--abort');
    expect(git('status', '--porcelain', '--', 'ann/semantic/tea.md')).toBe('');
  });

  it('during a rebase stopped on a conflict, mem add commits nothing between the rebased commits', async () => {
    const TEA = join(root, 'ann/semantic/tea.md');
    git('checkout', '-q', 'other');
    git('config', '--remove-section', 'merge.memdir');
    expect(() => git('rebase', 'main')).toThrow();
    const head = git('rev-parse', 'HEAD');
    const add = await runMem(['add', 'Ann walks the dog at noon', '--user', 'ann', '--json'], { root });
    expect(add.code).toBe(1);
    expect(add.json.error.message).toMatch(/nothing committed: a git rebase is in progress/);
    expect(git('rev-parse', 'HEAD')).toBe(head);
    git('rebase', '--abort');
    git('checkout', '-q', 'main');
    expect(await readFile(TEA, 'utf8')).toContain('mint tea');
  });
});
