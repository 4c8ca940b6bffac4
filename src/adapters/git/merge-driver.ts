// Registers memdir's merge driver for a root's memory files, in the clone's own git folder: the attribute
// (`/<root>/**/*.md merge=memdir`) in .git/info/attributes and the driver's command in .git/config. Neither is
// committed or in the work tree (docs/decisions/merge-driver.md says why). Idempotent; one git call reads both.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, relative, resolve, sep } from 'node:path';

import { STATE_DIR, isMemoryFileName } from '../../memory/layout.js';

/** The note the driver leaves in the git folder (src/cli/merge-driver.ts): versions it kept, from the top of the work tree. */
const KEPT_NOTE = 'memdir-kept';

const git = (cwd: string, args: string[]) =>
  new Promise<string>((done, fail) => execFile('git', args, { cwd, encoding: 'utf8' }, (err, out) => (err ? fail(err) : done(out))));

/** A word for `sh -c`, which git runs the driver with: single quotes, with any single quote closed and escaped. */
const shellWord = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The driver command git runs: this node and this install's driver, by absolute path (%O %A %B %P: git's files). */
export const driverCommand = (node: string, bin: string) => `${shellWord(node)} ${shellWord(bin)} %O %A %B %P`;

/**
 * The attributes line for a root at `prefix` (from the top of the work tree; '' for the top itself). Glob characters
 * are escaped; a prefix with blanks, quotes or a backslash cannot be written as a pattern and gets none.
 */
export function attributesLine(prefix: string): string | undefined {
  if (/[\s"'\\]/.test(prefix)) return undefined;
  return prefix ? `/${prefix.replace(/[*?[\]!]/g, (c) => `\\${c}`)}/**/*.md merge=memdir` : '*.md merge=memdir';
}

export interface MergeDriverSetup {
  /** What this call wrote (`info/attributes`, `config`); empty when all was in place. */
  wrote: string[];
  /** Versions the driver kept in a merge, not yet committed (paths relative to the root). */
  kept: string[];
  /** Memory files (relative to the root) a merge, rebase or cherry-pick left unmerged. */
  unmerged: string[];
  /** Forgets the kept versions named (once they are committed). */
  clearKept(): Promise<void>;
}

const NONE: MergeDriverSetup = { wrote: [], kept: [], unmerged: [], clearKept: async () => {} };

export async function setUpMergeDriver(root: string, command: string): Promise<MergeDriverSetup> {
  let out: string;
  try {
    out = await git(root, ['rev-parse', '--show-toplevel', '--git-path', 'info/attributes', '--git-path', KEPT_NOTE]);
  } catch {
    return NONE; // not a repository (yet: the first commit makes one)
  }
  const [top = '', attributes = '', note = ''] = out
    .split('\n')
    .filter(Boolean)
    .map((p) => resolve(root, p));
  const [configured, staged, written] = await Promise.all([
    git(root, ['config', '--local', '--get', 'merge.memdir.driver']).catch(() => ''),
    git(root, ['ls-files', '-u', '-z', '--', '.']).catch(() => ''),
    readFile(attributes, 'utf8').catch(() => ''),
  ]);
  const wrote: string[] = [];
  if (configured.trim() !== command) {
    await git(root, ['config', '--local', 'merge.memdir.name', 'memdir: memory files merged by their rules (day logs united, corrections kept)']);
    await git(root, ['config', '--local', 'merge.memdir.driver', command]);
    wrote.push('config');
  }
  const prefix = relative(top, root).split(sep).join('/');
  const line = attributesLine(prefix);
  if (line && !written.split(/\r?\n/).includes(line)) {
    await mkdir(dirname(attributes), { recursive: true });
    await appendFile(attributes, `${written && !written.endsWith('\n') ? '\n' : ''}${line}\n`);
    wrote.push('info/attributes');
  }
  const unmerged = [
    ...new Set(
      staged
        .split('\0')
        .map((e) => e.split('\t')[1] ?? '')
        .filter((p) => isMemoryFileName(basename(p)) && !p.split('/').includes(STATE_DIR)),
    ),
  ];
  const listed = existsSync(note) ? (await readFile(note, 'utf8')).split('\n').filter(Boolean) : [];
  const kept = [...new Set(listed)]
    .map((p) => (prefix ? (p.startsWith(`${prefix}/`) ? p.slice(prefix.length + 1) : '') : p))
    .filter((p) => p && existsSync(resolve(root, p)));
  return { wrote, kept, unmerged, clearKept: () => rm(note, { force: true }) };
}
