// Registers memdir's merge driver for a root's memory files: `*.md merge=memdir` in the root's .gitattributes
// (committed, so every clone merges memory files alike) and the driver's command in the repository's own
// .git/config (per clone: git never copies config). Idempotent and cheap when done: one git call reads both.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, readFile, rm } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';

import { STATE_DIR, isMemoryFileName } from '../../memory/layout.js';

const ATTRIBUTES_LINE = '*.md merge=memdir';
/** The note the driver leaves in the git folder (src/cli/merge-driver.ts): versions it kept, from the top of the work tree. */
const KEPT_NOTE = 'memdir-kept';

const git = (cwd: string, args: string[]) =>
  new Promise<string>((done, fail) => execFile('git', args, { cwd, encoding: 'utf8' }, (err, out) => (err ? fail(err) : done(out))));

/** A word for `sh -c`, which git runs the driver with: single quotes, with any single quote closed and escaped. */
const shellWord = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The driver command git runs: this node and this install's driver, by absolute path (%O %A %B %P: git's files). */
export const driverCommand = (node: string, bin: string) => `${shellWord(node)} ${shellWord(bin)} %O %A %B %P`;

export interface MergeDriverSetup {
  /** What this call wrote (`.gitattributes`, `git config merge.memdir.driver`); empty when all was in place. */
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
    // One call: the top of the work tree, the note's path, the configured driver (missing: git prints nothing for it).
    out = await git(root, [
      'rev-parse',
      '--show-toplevel',
      '--git-path',
      KEPT_NOTE,
      '--git-path',
      'rebase-merge',
      '--git-path',
      'rebase-apply',
      '--git-path',
      'MERGE_HEAD',
    ]);
  } catch {
    return NONE; // not a repository (yet: the first commit makes one)
  }
  const [top = '', note = '', ...ops] = out
    .split('\n')
    .filter(Boolean)
    .map((p) => resolve(root, p));
  const [configured, staged] = await Promise.all([
    git(root, ['config', '--local', '--get', 'merge.memdir.driver']).catch(() => ''),
    git(root, ['ls-files', '-u', '-z', '--', '.']).catch(() => ''),
  ]);
  const unmerged = [
    ...new Set(
      staged
        .split('\0')
        .map((e) => e.split('\t')[1] ?? '')
        .filter((p) => isMemoryFileName(basename(p)) && !p.split('/').includes(STATE_DIR)),
    ),
  ];
  const wrote: string[] = [];
  if (configured.trim() !== command) {
    await git(root, ['config', '--local', 'merge.memdir.name', 'memdir: memory files merged by their rules (day logs united, corrections kept)']);
    await git(root, ['config', '--local', 'merge.memdir.driver', command]);
    wrote.push('git config merge.memdir.driver');
  }
  const attributes = join(root, '.gitattributes');
  const text = await readFile(attributes, 'utf8').catch(() => '');
  if (!text.split(/\r?\n/).some((l) => l.trim() === ATTRIBUTES_LINE)) {
    await appendFile(attributes, `${text && !text.endsWith('\n') ? '\n' : ''}${ATTRIBUTES_LINE}\n`);
    wrote.push('.gitattributes');
    // Committed alone, so it travels; not while a merge or rebase is under way (it would land inside it).
    if (!ops.some((p) => existsSync(p))) {
      // Where no identity is configured (CI, a fresh machine), memdir's own, as its other commits.
      const email = (await git(root, ['config', 'user.email']).catch(() => '')).trim();
      const identity = email ? [] : ['-c', 'user.name=memdir', '-c', 'user.email=memdir@localhost'];
      await git(root, ['add', '--', attributes])
        .then(() => git(root, [...identity, 'commit', '--quiet', '--no-verify', '-m', 'memdir: MERGE-DRIVER\n\naction: MERGE-DRIVER', '--', attributes]))
        .catch(() => undefined);
    }
  }
  const listed = existsSync(note) ? (await readFile(note, 'utf8')).split('\n').filter(Boolean) : [];
  const prefix = relative(top, root).split(sep).join('/');
  const kept = [...new Set(listed)]
    .map((p) => (prefix ? (p.startsWith(`${prefix}/`) ? p.slice(prefix.length + 1) : '') : p))
    .filter((p) => p && existsSync(join(root, p)));
  return { wrote, kept, unmerged, clearKept: () => rm(note, { force: true }) };
}
