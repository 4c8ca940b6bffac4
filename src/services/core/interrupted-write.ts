// Writes that survive being killed: a write records what its files were before it changes them, and the next
// writing command settles a write that never finished (rolls it back to those bytes, or accepts it if committed).
import type { DepsUsing, MemoryDeps } from './deps.js';
import { syncIndex, type SyncIndex } from './sync.js';

export interface SettledWrite {
  action: string;
  started: string;
  paths: string[];
  /** committed: it had reached its commit (kept); rolled-back: its files are as they were before it. */
  outcome: 'committed' | 'rolled-back';
}

type JournalDeps = Pick<MemoryDeps, 'files' | 'audit' | 'journal'>;

/** Records the write before it changes anything; returns how to put these files back (the undo of a failed step). */
export async function beginWrite(deps: JournalDeps, action: string, paths: string[], now: Date): Promise<() => Promise<void>> {
  const before: Record<string, string | null> = {};
  for (const path of paths) before[path] = (await deps.files.stat(path)) ? Buffer.from(await deps.files.read(path)).toString('base64') : null;
  await deps.journal.begin({ action, started: now.toISOString(), before });
  return () => restore(deps, before);
}

/** The write is complete (committed, or nothing to commit): nothing is left to settle. */
export async function endWrite(deps: JournalDeps): Promise<void> {
  await deps.journal.end();
}

async function restore(deps: JournalDeps, before: Record<string, string | null>): Promise<void> {
  for (const [path, bytes] of Object.entries(before)) {
    if (bytes === null) await deps.files.remove(path).catch(() => {});
    // A file the write never changed is left alone: one it could not write (read-only) could not be written back either.
    else if ((await deps.files.stat(path)) && Buffer.from(await deps.files.read(path)).toString('base64') === bytes) continue;
    // Decoded as it was written, so a BOM or odd bytes come back unchanged.
    else await deps.files.write(path, new TextDecoder('utf-8', { ignoreBOM: true }).decode(Buffer.from(bytes, 'base64')));
  }
}

/**
 * Must run under the write lock. A write that was killed is settled: when every file it touched is committed as
 * it is on disk, it had finished but for forgetting its record; otherwise its files go back to what they were and
 * anything it staged is unstaged. Either way the paths are re-synced, so the index says what the files say.
 */
export async function settleInterruptedWrite(deps: DepsUsing<SyncIndex>): Promise<SettledWrite | null> {
  const pending = await deps.journal.pending();
  if (!pending) return null;
  const paths = Object.keys(pending.before);
  // Without git there is no commit to tell a finished write by: roll back (its caller never heard it succeed).
  const committed = deps.audit.enabled && paths.length > 0 && (await deps.audit.uncommitted(paths)).length === 0 && (await wasChanged(deps, pending.before));
  if (!committed) {
    await restore(deps, pending.before);
    await deps.audit.unstage(paths);
  }
  await syncIndex(deps, { only: paths });
  await deps.journal.end();
  return { action: pending.action, started: pending.started, paths, outcome: committed ? 'committed' : 'rolled-back' };
}

/** Whether the files differ from their recorded before-state (a write killed before changing anything did not commit). */
async function wasChanged(deps: JournalDeps, before: Record<string, string | null>): Promise<boolean> {
  for (const [path, bytes] of Object.entries(before)) {
    const now = (await deps.files.stat(path)) ? Buffer.from(await deps.files.read(path)).toString('base64') : null;
    if (now !== bytes) return true;
  }
  return false;
}

/**
 * Runs the steps of a write begun with beginWrite: a write whose index or commit step fails puts the files back as
 * they were, so nothing is on disk but neither indexed nor committed, and a retry does not write a duplicate. One
 * killed outright is put back by the next writing command, from the same record.
 */
export async function undoOnFailure(deps: DepsUsing<SyncIndex>, paths: string[], undo: () => Promise<void>, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (err) {
    await undo();
    await deps.audit.unstage(paths).catch(() => {});
    // Rows the failed step may have written go too; if the index is what failed, the next sync does it.
    await syncIndex(deps, { only: paths }).catch(() => {});
    await endWrite(deps).catch(() => {});
    throw err;
  }
  await endWrite(deps);
}
