// Several machines sharing one memory through git, in temporary folders: a bare remote and clones of it, each a
// memory root of its own (its own `.mem/`, its own collection in the shared Milvus Lite), driven with the real `bin/mem`.
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { runMem, type MemRun } from './harness.js';
import { tempRoot } from './temp-root.js';

/** git in a folder, as a person on that machine (an identity of their own). */
export function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Tester', '-c', 'user.email=tester@example.com', ...args], { cwd, encoding: 'utf8', stdio: 'pipe' });
}

export interface Machines {
  /** The folder holding the remote and the clones. */
  dir: string;
  remote: string;
  /** The clones' roots, by name. */
  roots: Record<string, string>;
  mem(machine: string, args: string[]): Promise<MemRun>;
  /** The files' and git's state a failed command must leave exactly as it was. */
  gitState(machine: string): string;
  /** Every memory file's text on a machine, joined. */
  texts(machine: string): Promise<string>;
  dispose(): Promise<void>;
}

/** A bare remote and clones of it; the first one starts the history (one memory), the others clone it. */
export async function machines(names: string[], first: { user: string; text: string }): Promise<Machines> {
  const dir = await tempRoot({}, 'memdir-machines-');
  const remote = join(dir, 'remote.git');
  gitIn(dir, 'init', '-q', '--bare', '-b', 'main', remote);
  const roots = Object.fromEntries(names.map((n) => [n, join(dir, n)]));
  const mem = (machine: string, args: string[]) => runMem(args, { root: roots[machine]! });
  const [head, ...rest] = names;
  await mkdir(roots[head!]!);
  gitIn(roots[head!]!, 'init', '-q', '-b', 'main');
  gitIn(roots[head!]!, 'remote', 'add', 'origin', remote);
  await mem(head!, ['add', first.text, '-u', first.user]);
  const pushed = await mem(head!, ['sync', '--json']);
  if (pushed.code !== 0) throw new Error(`the first sync failed: ${pushed.stdout}${pushed.stderr}`);
  for (const name of rest) gitIn(dir, 'clone', '-q', remote, name);
  return {
    dir,
    remote,
    roots,
    mem,
    gitState: (machine) =>
      ['rev-parse HEAD', 'status --porcelain=v1 --untracked-files=all', 'diff --cached --stat', 'for-each-ref', 'stash list']
        .map((cmd) => gitIn(roots[machine]!, ...cmd.split(' ')))
        .join('\n'),
    async texts(machine) {
      const root = roots[machine]!;
      const entries = await readdir(root, { recursive: true, withFileTypes: true });
      const files = entries.filter((e) => e.isFile() && e.name.endsWith('.md') && !/[/\\]\.(git|mem)([/\\]|$)/.test(e.parentPath + '/'));
      // In path order, so that two machines holding the same files give the same text.
      const paths = files.map((e) => join(e.parentPath, e.name)).sort();
      return (await Promise.all(paths.map((p) => readFile(p, 'utf8')))).join('\n');
    },
    async dispose() {
      for (const name of names) await runMem(['server', 'stop'], { root: roots[name]! });
      await rm(dir, { recursive: true, force: true });
    },
  };
}
