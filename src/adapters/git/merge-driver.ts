// Registers memdir's merge driver for a root's memory files, in the clone's own git folder: the attribute
// (`/<root>/**/*.md merge=memdir`) in .git/info/attributes and the driver's command in .git/config. Neither is
// committed or in the work tree (docs/decisions/merge-driver.md says why). Idempotent; one git call reads both.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, realpath, rm } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';

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
  /** The commit checked out (undefined before the first commit). */
  head?: string;
  /** Forgets the kept versions named (once they are committed). */
  clearKept(): Promise<void>;
}

const NONE: MergeDriverSetup = { wrote: [], kept: [], unmerged: [], clearKept: async () => {} };

export async function setUpMergeDriver(root: string, command: string): Promise<MergeDriverSetup> {
  // A root not made yet (`mem integrate` before the first capture) is registered from the folder that holds it.
  let cwd = root;
  while (!existsSync(cwd) && dirname(cwd) !== cwd) cwd = dirname(cwd);
  const present = cwd === root;
  let out: string;
  try {
    out = await git(cwd, ['rev-parse', '--show-toplevel', '--git-path', 'info/attributes', '--git-path', KEPT_NOTE]);
  } catch {
    return NONE; // not a repository (yet: the first commit makes one)
  }
  const [top = '', attributes = '', note = ''] = out
    .split('\n')
    .filter(Boolean)
    .map((p) => resolve(cwd, p));
  const [configured, staged, written, headOut, real] = await Promise.all([
    git(cwd, ['config', '--local', '--get', 'merge.memdir.driver']).catch(() => ''),
    present ? git(root, ['ls-files', '-u', '-z', '--', '.']).catch(() => '') : '',
    readFile(attributes, 'utf8').catch(() => ''),
    git(cwd, ['rev-parse', '--verify', '--quiet', 'HEAD']).catch(() => ''),
    realpath(cwd),
  ]);
  const head = headOut.trim() || undefined;
  const wrote: string[] = [];
  if (configured.trim() !== command) {
    await git(cwd, ['config', '--local', 'merge.memdir.name', 'memdir: memory files merged by their rules (day logs united, corrections kept)']);
    await git(cwd, ['config', '--local', 'merge.memdir.driver', command]);
    wrote.push('config');
  }
  // git names the top by its real path: the root's is taken the same way (a symlinked temp folder, a bind mount).
  const prefix = relative(top, join(real, relative(cwd, root)))
    .split(sep)
    .join('/');
  const line = attributesLine(prefix);
  if (line && !written.split(/\r?\n/).includes(line)) {
    // Only `info/` inside a git folder that exists: a root deleted meanwhile (with its .git) is not made again.
    await mkdir(dirname(attributes)).catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    });
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
  const listed = present && existsSync(note) ? (await readFile(note, 'utf8')).split('\n').filter(Boolean) : [];
  const kept: string[] = [];
  for (const p of new Set(listed)) {
    const rel = prefix ? (p.startsWith(`${prefix}/`) ? p.slice(prefix.length + 1) : '') : p;
    if (!rel || !existsSync(resolve(root, rel))) continue;
    // A merge aborted after the driver ran leaves a version nothing supersedes: it goes, it is not committed.
    const hash = /\.([0-9a-f]{8})\.md$/.exec(rel)?.[1];
    const merged = await readFile(resolve(root, rel.replace(/\.[0-9a-f]{8}\.md$/, '.md')), 'utf8').catch(() => '');
    if (hash && merged.includes(`.${hash}`)) kept.push(rel);
    else {
      const tracked = await git(root, ['ls-files', '--error-unmatch', '--', rel]).then(
        () => true,
        () => false,
      );
      if (!tracked) await rm(resolve(root, rel), { force: true });
    }
  }
  return { wrote, kept, unmerged, ...(head ? { head } : {}), clearKept: () => rm(note, { force: true }) };
}

/**
 * Whether the work tree may hold changes memdir did not index since `since` (the commit it last saw): HEAD's reflog
 * since then holds anything but memdir's own commits made here — a pull, merge, rebase, cherry-pick, checkout or a
 * person's commit (a commit memdir made on another machine arrives by a pull, so it counts). No reflog: assume so.
 */
export async function changedSince(root: string, since: string, head: string): Promise<boolean> {
  if (since === head) return false;
  const log = await git(root, ['reflog', '-n', '500', '--format=%H%x09%gs', 'HEAD']).catch(() => '');
  for (const entry of log.split('\n').filter(Boolean)) {
    const [commit, subject = ''] = entry.split('\t');
    if (commit === since) return false;
    if (!/^commit(?: \(initial\))?: memdir: /.test(subject)) return true;
  }
  return true;
}
