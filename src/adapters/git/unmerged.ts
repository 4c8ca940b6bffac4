// UnmergedFiles on git: the memory files a merge, rebase, cherry-pick or revert left unmerged (git's index stages
// 1-3), the commit that deleted one, and marking one resolved. Used while the person's operation is under way.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

import { STATE_DIR, isMemoryFileName } from '../../memory/layout.js';
import type { UnmergedFile, UnmergedFiles } from '../../services/ports.js';
import { makeBelow } from '../state/state-dir.js';

const git = (cwd: string, args: string[]) =>
  new Promise<string>((done, fail) => execFile('git', args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 }, (err, out) => (err ? fail(err) : done(out))));

// The file git keeps while each is under way, and the ref of the other side's commit; a rebase first (it picks).
const OPERATIONS: [string, string, string][] = [
  ['rebase-merge', 'rebase', 'REBASE_HEAD'],
  ['rebase-apply', 'rebase', 'REBASE_HEAD'],
  ['CHERRY_PICK_HEAD', 'cherry-pick', 'CHERRY_PICK_HEAD'],
  ['REVERT_HEAD', 'revert', 'REVERT_HEAD'],
  ['MERGE_HEAD', 'merge', 'MERGE_HEAD'],
];

export class GitUnmerged implements UnmergedFiles {
  constructor(private readonly root: string) {}

  private async current(): Promise<[string, string] | undefined> {
    const paths = await git(this.root, ['rev-parse', ...OPERATIONS.flatMap(([p]) => ['--git-path', p])]).catch(() => '');
    const found = paths
      .split('\n')
      .filter(Boolean)
      .findIndex((p) => existsSync(resolve(this.root, p)));
    return found === -1 ? undefined : [OPERATIONS[found]![1], OPERATIONS[found]![2]];
  }

  async operation(): Promise<string | undefined> {
    return (await this.current())?.[0];
  }

  async list(): Promise<UnmergedFile[]> {
    // Paths relative to the working folder (the root), as ours are.
    const out = await git(this.root, ['ls-files', '-u', '-z', '--', '.']).catch(() => '');
    const stages = new Map<string, string[]>();
    for (const entry of out.split('\0').filter(Boolean)) {
      const [info = '', path = ''] = entry.split('\t');
      const [, sha = '', stage = ''] = info.split(' ');
      if (!isMemoryFileName(basename(path)) || path.split('/').includes(STATE_DIR)) continue;
      const s = stages.get(path) ?? [];
      s[Number(stage)] = sha;
      stages.set(path, s);
    }
    const blob = (sha: string | undefined) => (sha ? git(this.root, ['cat-file', 'blob', sha]) : Promise.resolve(undefined));
    const files: UnmergedFile[] = [];
    for (const [path, [, base, ours, theirs]] of stages) {
      const [b, o, t] = await Promise.all([blob(base), blob(ours), blob(theirs)]);
      files.push({ path, ...(b !== undefined ? { base: b } : {}), ...(o !== undefined ? { ours: o } : {}), ...(t !== undefined ? { theirs: t } : {}) });
    }
    return files;
  }

  async deletion(path: string, side: 'ours' | 'theirs'): Promise<string | undefined> {
    const ref = side === 'ours' ? 'HEAD' : (await this.current())?.[1];
    if (!ref) return undefined;
    const message = await git(this.root, ['log', '-1', '--format=%B', '--diff-filter=D', ref, '--', path]).catch(() => '');
    return message.trim() ? message.trim() : undefined;
  }

  async resolve(path: string, text: string | null): Promise<void> {
    const file = join(this.root, path);
    if (text === null) {
      await git(this.root, ['rm', '--cached', '--quiet', '--ignore-unmatch', '--', path]);
      await rm(file, { force: true });
      return;
    }
    await makeBelow(this.root, dirname(file));
    await writeFile(file, text);
    await git(this.root, ['add', '--', path]);
  }
}
