// The git merge driver for memory files (`merge=memdir`, registered per clone by any mem command): git runs it once per file both
// sides changed, from the top of the work tree, as `mem-merge-file %O %A %B %P`. It writes memdir's merge into %A
// and exits 0; a file it cannot read is handed to `git merge-file`, which leaves git's usual conflict markers. It
// loads no index, model or configuration: git waits for it once per file.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';

import { mergeMemoryFile } from '../memory/merge/file.js';

/** The name of the note, in the git folder, of versions the driver kept beside a merged file (paths from the top). */
export const KEPT_NOTE = 'memdir-kept';

/** The git folder's path of `name` (a linked work tree keeps info/ in the common folder): git says where. */
const gitPath = (name: string) => execFileSync('git', ['rev-parse', '--git-path', name], { encoding: 'utf8' }).trim();

/**
 * The memory root holding `path` (both from the top of the work tree): the longest root registered in
 * .git/info/attributes (a `/<root>/...md merge=memdir` line; `*.md merge=memdir` for the top itself) that holds it.
 */
function rootOf(path: string): string {
  const file = gitPath('info/attributes');
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  let best = '';
  for (const line of text.split(/\r?\n/)) {
    const m = /^\/(.+)\/\*\*\/\*\.md merge=memdir$/.exec(line.trim());
    const root = m ? m[1]!.replace(/\\(.)/g, '$1') : undefined;
    if (root && path.startsWith(`${root}/`) && root.length > best.length) best = root;
  }
  return best;
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
  const rel = root ? path.slice(root.length + 1) : path;
  const result = mergeMemoryFile({ path: rel, base: read(base), ours: read(ours), theirs: read(theirs) });
  if (!result.ok) {
    process.stderr.write(`memdir: ${path} cannot be merged by memdir's rules (${result.reason}); left to git's own merge\n`);
    return gitMergeFile(base, ours, theirs, path);
  }
  if (result.kept) {
    const kept = root ? `${root}/${result.kept.path}` : result.kept.path;
    // Never over another file: a different one already there (a name clash) leaves the merge to the person.
    if (existsSync(kept) && read(kept) !== result.kept.text) {
      process.stderr.write(`memdir: ${path}: ${kept} is in the way of the other side's version; left to git's own merge\n`);
      return gitMergeFile(base, ours, theirs, path);
    }
    writeFileSync(kept, result.kept.text);
    // The index is locked while git merges: the next mem command commits the kept version (it reads this note).
    appendFileSync(gitPath(KEPT_NOTE), `${kept}\n`);
    process.stderr.write(`memdir: ${path}: both sides changed it; the later one stays, the other is kept as ${kept} (superseded by it)\n`);
  }
  writeFileSync(ours, result.text);
  return 0;
}
