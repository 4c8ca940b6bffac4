// The git merge driver for memory files (`merge=memdir` in a root's .gitattributes): git runs it once per file both
// sides changed, from the top of the work tree, as `mem-merge-file %O %A %B %P`. It writes memdir's merge into %A
// and exits 0; a file it cannot read is handed to `git merge-file`, which leaves git's usual conflict markers. It
// loads no index, model or configuration: git waits for it once per file.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';

import { mergeMemoryFile } from '../memory/merge/file.js';

/** The attribute line memdir writes into a root's .gitattributes: how the driver finds the root of a path. */
export const MERGE_ATTRIBUTE = 'merge=memdir';

/** The name of the note, in the git folder, of versions the driver kept beside a merged file (paths from the top). */
export const KEPT_NOTE = 'memdir-kept';

/** The folder (from the top of the work tree) whose .gitattributes names the driver: the memory root of `path`. */
function rootOf(path: string): string {
  for (let dir = posix.dirname(path); ; dir = posix.dirname(dir)) {
    const attributes = join(dir, '.gitattributes');
    if (existsSync(attributes) && readFileSync(attributes, 'utf8').includes(MERGE_ATTRIBUTE)) return dir;
    if (dir === '.' || dir === '/') return '.';
  }
}

/** The git folder of the work tree git runs the driver in (`.git`, or the folder a linked work tree's `.git` file names). */
function gitDir(): string {
  if (statSync('.git').isDirectory()) return '.git';
  const named = /^gitdir:\s*(.+)$/m.exec(readFileSync('.git', 'utf8'))?.[1]?.trim();
  if (!named) throw new Error('no git folder');
  return named;
}

const read = (file: string) => readFileSync(file, 'utf8');

/** Git's own three-way text merge of the three files, with its conflict markers: the exit code git expects. */
function gitMergeFile(base: string, ours: string, theirs: string, path: string): number {
  try {
    execFileSync('git', ['merge-file', '-L', `${path} (ours)`, '-L', `${path} (base)`, '-L', `${path} (theirs)`, ours, base, theirs], { stdio: 'ignore' });
    return 0;
  } catch (err) {
    const status = (err as { status?: number | null }).status;
    return typeof status === 'number' && status > 0 ? 1 : 2;
  }
}

/** Runs the driver on git's arguments; the exit code for git (0 merged, non-zero a conflict left in %A). */
export function mergeDriver(args: string[]): number {
  const [base, ours, theirs, path] = args;
  if (!base || !ours || !theirs || !path) {
    process.stderr.write('usage: mem-merge-file %O %A %B %P (run by git, set up by any mem command)\n');
    return 2;
  }
  const root = rootOf(path);
  const rel = root === '.' ? path : path.slice(root.length + 1);
  const result = mergeMemoryFile({ path: rel, base: read(base), ours: read(ours), theirs: read(theirs) });
  if (!result.ok) {
    process.stderr.write(`memdir: ${path} cannot be merged by memdir's rules (${result.reason}); left to git's own merge\n`);
    return gitMergeFile(base, ours, theirs, path);
  }
  if (result.kept) {
    const kept = root === '.' ? result.kept.path : `${root}/${result.kept.path}`;
    // Never over another file: a different one already there (a name clash) leaves the merge to the person.
    if (existsSync(kept) && read(kept) !== result.kept.text) {
      process.stderr.write(`memdir: ${path}: ${kept} is in the way of the other side's version; left to git's own merge\n`);
      return gitMergeFile(base, ours, theirs, path);
    }
    writeFileSync(kept, result.kept.text);
    // The index is locked while git merges: the next mem command commits the kept version (it reads this note).
    appendFileSync(join(gitDir(), KEPT_NOTE), `${kept}\n`);
    process.stderr.write(`memdir: ${path}: both sides changed it; the later one stays, the other is kept as ${kept} (superseded by it)\n`);
  }
  writeFileSync(ours, result.text);
  return 0;
}
