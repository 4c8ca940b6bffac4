// Use case: settle the memory files a git merge, rebase or cherry-pick left unmerged, by memdir's rules — a file
// both sides changed is merged as the merge driver would; a file one side deleted goes if `mem forget` deleted it
// and stays (reported) if anything else did. Stages the results; finishing the merge is the person's (or sync's).
// API for other use cases: settleUnmerged(git) here, with the UnmergedFiles port (services/ports.ts); from outside
// services, settleUnmergedMemory(root) in open-memory.ts wires it to git. isForgetMessage (core/commit-message.ts)
// tells a forget's commit; mergeMemoryFile (memory/merge/file.ts) is the driver's pure rule for one file.
import { mergeMemoryFile, type KeptVersion } from '../../memory/merge/file.js';
import { isForgetMessage } from '../core/commit-message.js';
import type { UnmergedFile, UnmergedFiles } from '../ports.js';

export interface SettledFile {
  path: string;
  /**
   * merged: both changes kept in the file; kept-both: the later one at the path, the other beside it (`kept`);
   * forgotten: a forget on one side removed it; change-kept: one side deleted it without a forget, the change stays;
   * deleted: both sides deleted it.
   */
  how: 'merged' | 'kept-both' | 'forgotten' | 'change-kept' | 'deleted';
  kept?: string;
  /** What a person should know (the deletion that lost, and by which commit). */
  note?: string;
}

export interface SettleReport {
  operation?: string;
  settled: SettledFile[];
  /** Files memdir cannot settle (not readable as memories): the person resolves them as any git conflict. */
  left: { path: string; reason: string }[];
  /** What to run next to finish the merge, when one is under way. */
  next?: string;
}

const subject = (message: string) => message.split('\n', 1)[0] ?? '';

const NEXT: Record<string, string> = {
  merge: 'git commit',
  rebase: 'git rebase --continue',
  'cherry-pick': 'git cherry-pick --continue',
  revert: 'git revert --continue',
};

async function settleOne(git: UnmergedFiles, file: UnmergedFile): Promise<SettledFile | { path: string; reason: string }> {
  const { path, base, ours, theirs } = file;
  if (ours !== undefined && theirs !== undefined) {
    const r = mergeMemoryFile({ path, ...(base !== undefined ? { base } : {}), ours, theirs });
    if (!r.ok) return { path, reason: r.reason };
    const kept: KeptVersion | undefined = r.kept;
    if (kept) await git.resolve(kept.path, kept.text);
    await git.resolve(path, r.text);
    return { path, how: r.how === 'kept-both' ? 'kept-both' : 'merged', ...(kept ? { kept: kept.path } : {}) };
  }
  if (ours === undefined && theirs === undefined) {
    await git.resolve(path, null);
    return { path, how: 'deleted' };
  }
  const deletedBy = ours === undefined ? 'ours' : 'theirs';
  const message = await git.deletion(path, deletedBy);
  if (message !== undefined && isForgetMessage(message)) {
    await git.resolve(path, null);
    return {
      path,
      how: 'forgotten',
      note: `forgotten on ${deletedBy === 'ours' ? 'this' : 'the other'} side (${subject(message)}); the change made on the other is dropped with it`,
    };
  }
  await git.resolve(path, (ours ?? theirs)!);
  const by = message !== undefined ? `by "${subject(message)}"` : 'by a commit memdir cannot find';
  return {
    path,
    how: 'change-kept',
    note: `deleted on ${deletedBy === 'ours' ? 'this' : 'the other'} side ${by}, not by mem forget: the change made on the other side is kept`,
  };
}

export async function settleUnmerged(git: UnmergedFiles): Promise<SettleReport> {
  const operation = await git.operation();
  const report: SettleReport = { ...(operation ? { operation } : {}), settled: [], left: [] };
  for (const file of await git.list()) {
    const r = await settleOne(git, file);
    if ('reason' in r) report.left.push(r);
    else report.settled.push(r);
  }
  if (operation && report.left.length === 0) report.next = NEXT[operation] ?? 'git commit';
  return report;
}
