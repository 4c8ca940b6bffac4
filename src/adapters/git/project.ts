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
  /** Whether the folder exists and is inside a git work tree: only then may a project memory be made for it. */
  inWorkTree: boolean;
}

/**
 * A path `git rev-parse` printed, without its final line break and nothing else trimmed: a folder's name may
 * hold a newline or start or end with a space, and rev-parse has no NUL-terminated form, so it is asked for
 * one path per call.
 */
export function printedPath(stdout: string): string {
  return stdout.endsWith('\n') ? stdout.slice(0, -1) : stdout;
}

async function gitPath(folder: string, what: '--git-common-dir' | '--show-toplevel'): Promise<string> {
  const { stdout } = await run('git', ['-C', folder, 'rev-parse', '--path-format=absolute', what], { timeout: 5_000 });
  return printedPath(stdout);
}

export async function findProject(cwd: string): Promise<Project> {
  const folder = resolve(cwd);
  try {
    const [common, top] = await Promise.all([gitPath(folder, '--git-common-dir'), gitPath(folder, '--show-toplevel')]);
    // A bare repository's common dir is the repository itself; otherwise it is <main worktree>/.git.
    const dir = basename(common) === '.git' ? dirname(common) : top;
    return { dir, worktree: top, name: basename(dir), inWorkTree: true };
  } catch {
    // Not a git work tree (or no such folder, or git missing): the folder stands for itself.
    return { dir: folder, worktree: folder, name: basename(folder), inWorkTree: false };
  }
}
