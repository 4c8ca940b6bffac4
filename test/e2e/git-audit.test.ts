// Git as the audit trail when the memory root sits inside an existing project repository.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { disposeE2eRoot } from '../support/e2e-root.js';
import { runMem } from '../support/harness.js';
import { tempRoot } from '../support/temp-root.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });

describe('memory root inside a project repository', () => {
  let project: string;
  let root: string;

  beforeAll(async () => {
    project = await tempRoot({ 'README.md': '# project\n', 'src/app.js': 'console.log(1)\n' }, 'memdir-e2e-git-');
    git(project, 'init', '-q');
    git(project, '-c', 'user.name=t', '-c', 'user.email=t@t', 'add', '-A');
    git(project, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'initial');
    root = join(project, 'memories');
    await mkdir(root);
  });
  afterAll(async () => {
    await disposeE2eRoot(root, project);
  });

  it('commits only the memory file it wrote, leaving the project’s own changes alone', async () => {
    await writeFile(join(project, 'src/app.js'), 'console.log(2)\n');
    git(project, 'add', 'src/app.js'); // staged by the developer, not ours to commit
    const add = await runMem(['add', 'The project deploys with npm publish', '--user', 'dev', '--json'], { root });
    expect(add.code).toBe(0);
    expect(existsSync(join(project, 'memories/.git'))).toBe(false); // no nested repository
    const files = git(project, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n');
    expect(files).toEqual([`memories/${add.json.path}`]);
    expect(git(project, 'diff', '--cached', '--name-only').trim()).toBe('src/app.js');
    expect(git(project, 'status', '--porcelain')).not.toContain('.mem');
  });

  it("a supersede over a file the person edited and did not commit says so in memdir's commit", async () => {
    const first = await runMem(['add', 'The staging server is called aurora', '--user', 'dev', '--key', 'staging', '--json'], { root });
    expect(first.code).toBe(0);
    // The person adds a line by hand and does not commit it; then an agent's keyed add supersedes the file.
    await writeFile(join(root, first.json.path), `${await readFile(join(root, first.json.path), 'utf8')}\nIts admin panel is on port 9443.\n`);
    const second = await runMem(['add', 'The staging server is now called borealis', '--user', 'dev', '--key', 'staging', '--json'], { root });
    expect(second.json.action).toBe('SUPERSEDE');
    const message = git(project, 'log', '-1', '--format=%B');
    expect(message).toContain(`includes_uncommitted: ${first.json.path}`);
    // Without a hand edit, no such line.
    const third = await runMem(['add', 'The staging server is now called cirrus', '--user', 'dev', '--key', 'staging', '--json'], { root });
    expect(third.json.action).toBe('SUPERSEDE');
    expect(git(project, 'log', '-1', '--format=%B')).not.toContain('includes_uncommitted');
  });

  it('MEM_GIT=off writes and indexes without committing', async () => {
    const before = git(project, 'rev-parse', 'HEAD');
    const add = await runMem(['add', 'Staging runs on port 8080', '--user', 'dev', '--json'], { root, env: { MEM_GIT: 'off' } });
    expect(add.code).toBe(0);
    expect(git(project, 'rev-parse', 'HEAD')).toBe(before);
    const res = await runMem(['search', 'which port does staging use', '--user', 'dev', '--json'], { root });
    expect(res.json.results[0].id).toBe(add.json.id);
  });
});
