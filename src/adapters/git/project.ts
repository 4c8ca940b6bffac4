// Which project a folder belongs to, from git: every worktree of one repository resolves to the same
// main working tree, so they share one project memory (`<main worktree>/memories`).
import { execFile } from 'node:child_process';
import { basename, dirname, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Project {
  /** The repository's main working tree (the folder itself when it is not in a git repository). */
  dir: string;
  /** The working tree the folder is in (differs from dir in a linked worktree). */
  worktree: string;
  name: string;
}

export async function findProject(cwd: string): Promise<Project> {
  const folder = resolve(cwd);
  try {
    const { stdout } = await run('git', ['-C', folder, 'rev-parse', '--path-format=absolute', '--git-common-dir', '--show-toplevel'], { timeout: 5_000 });
    const [common = '', top = ''] = stdout.trim().split('\n');
    // A bare repository's common dir is the repository itself; otherwise it is <main worktree>/.git.
    const dir = basename(common) === '.git' ? dirname(common) : top || folder;
    return { dir, worktree: top || folder, name: basename(dir) };
  } catch {
    return { dir: folder, worktree: folder, name: basename(folder) };
  }
}
