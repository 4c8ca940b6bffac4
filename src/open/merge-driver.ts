// memdir's side of git merges of memory files: the merge driver registered at every opening (beside the connection),
// and the unmerged memory files a merge, rebase or cherry-pick left, settled by memdir's rules.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { errorMessage } from '../errors.js';
import type { SettleReport } from '../services/merge/settle.js';

/** This install's merge driver, as git runs it: this node and the driver's bin by absolute path. */
const MERGE_DRIVER_BIN = fileURLToPath(new URL('../../bin/mem-merge-file.js', import.meta.url));

/**
 * Registers the merge driver for the root's memory files (src/adapters/git/merge-driver.ts); every opening checks it,
 * so a fresh clone gets it at its first command and a moved node or install is followed. Versions the driver kept in
 * a merge are committed here, once no merge or rebase is under way. Best effort: a command never fails for it.
 */
export async function setUpMergeDriver(
  root: string,
  onLog?: (line: string) => void,
  options: { existingRoot?: boolean } = {},
): Promise<{ wrote: string[]; committed: string[]; head?: string }> {
  // A root that must exist and is gone has no repository of its own: the one of the folder above is not its to set.
  if (options.existingRoot && !existsSync(root)) return { wrote: [], committed: [] };
  let setup;
  try {
    const { setUpMergeDriver: setUp, driverCommand } = await import('../adapters/git/merge-driver.js');
    setup = await setUp(root, driverCommand(process.execPath, MERGE_DRIVER_BIN));
    if (setup.unmerged.length > 0) {
      onLog?.(
        `git left ${setup.unmerged.length} memory file(s) unmerged (${setup.unmerged.slice(0, 5).join(', ')}${setup.unmerged.length > 5 ? ', …' : ''}): \`mem resolve\` settles them by memdir's rules`,
      );
    }
  } catch (err) {
    onLog?.(`the merge driver for memory files could not be set up: ${errorMessage(err)}`);
    return { wrote: [], committed: [] };
  }
  const head = setup.head ? { head: setup.head } : {};
  if (setup.kept.length === 0) return { wrote: setup.wrote, committed: [], ...head };
  try {
    const [{ GitAudit }, { commitMessage }] = await Promise.all([import('../adapters/git/git-audit.js'), import('../services/core/commit-message.js')]);
    await new GitAudit(root, true).commit(setup.kept, await commitMessage('MERGE-KEPT', { count: String(setup.kept.length) }));
    await setup.clearKept();
    // memdir's own commit: what it changes is indexed by the sync that follows it.
    return { wrote: setup.wrote, committed: setup.kept, ...head };
  } catch (err) {
    onLog?.(`versions kept by a merge (${setup.kept.join(', ')}) are not committed yet: ${errorMessage(err)}`);
    return { wrote: setup.wrote, committed: [], ...head };
  }
}

/**
 * Settles the memory files a git merge, rebase or cherry-pick left unmerged under the root, by memdir's rules
 * (services/merge/settle.ts); no index or model is opened. `mem resolve` runs it, and so may `mem sync`.
 */
export async function settleUnmergedMemory(root: string): Promise<SettleReport> {
  const [{ GitUnmerged }, { settleUnmerged }] = await Promise.all([import('../adapters/git/unmerged.js'), import('../services/merge/settle.js')]);
  return settleUnmerged(new GitUnmerged(root));
}

/** For `mem sync`: the unmerged paths memdir's rules did not settle (other files, and memory files it cannot read). */
export async function settleOnSync(root: string, paths: string[]): Promise<string[]> {
  const report = await settleUnmergedMemory(root);
  const settled = new Set(report.settled.map((s) => s.path));
  return paths.filter((p) => !settled.has(p));
}
