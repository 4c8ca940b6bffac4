// The last step of opening a root: its index brought in step before any use, rebuilt for a copied root, or
// following a git merge made by hand since the last command.
import { join } from 'node:path';

import { errorMessage } from '../errors.js';
import type { StateLayout } from '../memory/layout.js';
import type { Memory } from '../services/facade.js';

/**
 * After a pull, merge, rebase or cherry-pick made by hand, the first command to open the root brings its index in
 * step (incrementally: unchanged files are skipped), as a running `mem watch` does; memdir's own commits do not
 * count. The commit last seen is kept in the state folder.
 */
async function followGit(memory: Memory, root: string, layout: StateLayout, head: string | undefined, manifestExists: () => Promise<boolean>): Promise<void> {
  if (!head) return;
  const [{ readFile, writeFile }, { changedSince }, { ensureStateDir }] = await Promise.all([
    import('node:fs/promises'),
    import('../adapters/git/merge-driver.js'),
    import('../adapters/state/state-dir.js'),
  ]);
  const file = join(layout.dir, 'git-head');
  const seen = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (seen === head) return;
  if (seen && (await changedSince(root, seen, head)) && (await manifestExists())) await memory.reindex();
  await ensureStateDir(layout.dir);
  await writeFile(file, `${head}\n`);
}

export async function catchUp(
  memory: Memory,
  at: { root: string; layout: StateLayout; rebuild: boolean; head: string | undefined; manifestExists: () => Promise<boolean> },
  onLog?: (line: string) => void,
): Promise<void> {
  // A copied root (its identity minted anew) is re-indexed here, from its vector cache, before any use.
  if (at.rebuild) await memory.reindex();
  else {
    await followGit(memory, at.root, at.layout, at.head, at.manifestExists).catch((err: unknown) =>
      onLog?.(`the index could not follow the last git merge (\`mem reindex\` brings it up to date): ${errorMessage(err)}`),
    );
  }
}
