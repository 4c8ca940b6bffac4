// Use case `mem sync`: a root that is its own repository exchanges its commits with its remote — what was left
// uncommitted is committed, the remote's commits merged (or, after a purge, this clone's commits moved onto the
// rewritten history), the result pushed — then the index follows; any failure puts git back as it was.
import { MemError } from '../../errors.js';
import { commitMessage } from '../core/commit-message.js';
import type { DepsUsing } from '../core/deps.js';
import { writeLocked } from '../write-locked.js';
import type { PurgeReport, PurgeIndex } from '../core/purge.js';
import type { MemoryRepository, SyncRecord, TreeChanges } from '../ports.js';
import { finishSync } from './finish.js';

export interface RemoteSyncOptions {
  /** Each step as it starts (a terminal shows them: a fetch or push can take a while). */
  onStep?: (step: string) => void;
}

export interface RemoteSyncResult {
  /** own: the root is its own repository and was synced; project: nothing was done (see message). */
  place: 'own' | 'project';
  message?: string;
  remote?: string;
  branch?: string;
  /** Files that were uncommitted, committed first (one commit). */
  committed: string[];
  /** What came in: commits (and how many were forgets), and the files they added, changed and deleted. */
  incoming: { commits: number; forgets: number } & TreeChanges;
  /** Commits pushed. */
  outgoing: { commits: number };
  /** remote: the remote's history had been rewritten (a purge elsewhere), this clone's commits were moved onto it;
   *  local: this clone's purge replaced the remote's old history. */
  rewritten?: 'remote' | 'local';
  /** The index after the incoming files: texts embedded (only texts this machine never embedded), rows written and deleted. */
  index: { embedded: number; upserted: number; deleted: number; purged?: PurgeReport['index'] };
  /** A sync that an earlier, killed run left unfinished: put back before this one, or finished. */
  settled?: 'rolled-back' | 'finished';
}

const NO_CHANGES: TreeChanges = { added: [], changed: [], deleted: [] };

export async function syncWithRemote(deps: DepsUsing<PurgeIndex>, options: RemoteSyncOptions = {}): Promise<RemoteSyncResult> {
  const repo = deps.repository;
  const root = deps.files.root;
  if (!repo) throw new MemError('mem sync needs git, which is off for this root (MEM_GIT)');
  const place = await repo.place();
  if (place.kind === 'none') {
    throw new MemError(
      `${root} is not a git repository: make it one with a remote (git -C ${root} init; git -C ${root} remote add origin <url>), then run mem sync`,
    );
  }
  if (place.kind === 'project') {
    return {
      place: 'project',
      message:
        `the memory root is a folder of the repository ${place.repository}: its memory travels with that repository's own ` +
        'git flow (commit, pull, push as usual; memdir resolves memory files in merges). Nothing was changed.',
      committed: [],
      incoming: { commits: 0, forgets: 0, ...NO_CHANGES },
      outgoing: { commits: 0 },
      index: { embedded: 0, upserted: 0, deleted: 0 },
    };
  }
  const { remote, branch, remoteBranch } = place;
  if (!remote) throw new MemError(`the repository of ${root} has no remote: add one (git -C ${root} remote add origin <url>), then run mem sync again`);
  const step = options.onStep ?? (() => {});
  // Looked at before the lock is taken, since taking it settles a sync that was killed (writeLocked).
  const settled = await repo.pendingSync().then((r) => (r ? (r.phase === 'index' ? 'finished' : 'rolled-back') : null));
  return writeLocked(deps, async () => {
    await refuseDuringOperation(repo, root);
    let record: SyncRecord = { phase: 'git', started: deps.now().toISOString(), remote, ...(await repo.snapshot(remote, remoteBranch)) };
    step(`asking ${remote} for ${remoteBranch}`);
    // Nothing is changed before the remote has answered: an unreachable one leaves everything as it was.
    const tip = await repo.remoteTip(remote, remoteBranch);
    await repo.saveSync(record);
    let rewritten: RemoteSyncResult['rewritten'] = undefined;
    let committed: string[] = [];
    let outgoing = 0;
    let purgedFrom: string | null = null;
    try {
      const made = await repo.commitAll((files) =>
        commitMessage('SYNC', { count: String(files.length) }, `uncommitted files committed by mem sync:\n${files.join('\n')}`),
      );
      if (made) {
        committed = made.files;
        record = { ...record, committed: made.commit };
        await repo.saveSync(record);
      }
      const before = made?.commit ?? record.head;
      purgedFrom = await repo.purgedFrom(record.trackingRef);
      let lease: string | null | undefined;
      if (purgedFrom && tip === purgedFrom) {
        // This clone's purge: the remote still holds exactly the history it rewrote, which this one replaces.
        lease = tip;
        rewritten = 'local';
      } else if (purgedFrom && tip) {
        throw new MemError(
          `the remote ${remote} has commits made on top of the history that forget --purge-history rewrote here; pushing would bring ` +
            'the forgotten text back or drop them. Run mem sync on the clone that made them first, or re-clone this memory and forget there again',
        );
      } else if (tip) {
        step(`fetching from ${remote}`);
        await repo.fetch(remote, remoteBranch);
        const head = await repo.head();
        let unmerged: string[] = [];
        // The remote's old history as this clone last saw it: the ref's value before this fetch, or (a purge arrived by
        // a `git fetch` run by hand) the value before that.
        const oldBase =
          record.tracking && !(await repo.contains(record.tracking, tip))
            ? record.tracking
            : head
              ? await repo.oldHistoryBase(record.trackingRef, head, tip)
              : null;
        if (oldBase) {
          // The remote's history was rewritten (a purge made elsewhere): only this clone's own commits, those the
          // old history lacks, go onto the new one; the old commits are never merged, so never pushed back.
          step('moving this clone’s commits onto the rewritten history');
          rewritten = 'remote';
          unmerged = await repo.rebase(tip, oldBase);
        } else if (!head || !(await repo.contains(tip, head))) {
          step(`merging ${remote}/${remoteBranch}`);
          unmerged = await repo.merge(tip, `memdir: SYNC merge ${remote}/${remoteBranch}\n\naction: SYNC`);
        }
        while (unmerged.length > 0) {
          const left = deps.mergeDriver ? await deps.mergeDriver.settle(unmerged) : unmerged;
          if (left.length > 0) {
            throw new MemError(
              `the merge with ${remote}/${remoteBranch} could not be finished: ${left.join(', ')} conflict in a way memdir's rules do not resolve; ` +
                'nothing was changed (resolve them with git merge by hand, then run mem sync again)',
            );
          }
          unmerged = await repo.continueOperation(`memdir: SYNC merge ${remote}/${remoteBranch}\n\naction: SYNC`);
        }
        // Versions the merge driver kept beside a file both sides changed are new files: they travel with this sync.
        await repo.commitAll((files) => commitMessage('MERGE-KEPT', { count: String(files.length) }, files.join('\n')));
      }
      const after = await repo.head();
      if (after) {
        // What the remote lacks: all of it when this clone's purge replaces the remote's history.
        outgoing = (await repo.commitsBetween(rewritten === 'local' ? null : tip, after)).commits;
        if (rewritten === 'local' || (after !== tip && outgoing > 0)) {
          step(`pushing to ${remote}`);
          await repo.push(remote, remoteBranch, lease);
        }
      }
      record = { ...record, phase: 'index', from: before, ...(after ? { to: after } : {}), ...(rewritten ? { rewritten: true } : {}) };
      await repo.saveSync(record);
    } catch (err) {
      await repo.restore(record);
      await repo.endSync();
      throw err instanceof MemError ? new MemError(`${err.message} (the repository is as it was before mem sync)`, { cause: err }) : err;
    }
    if (purgedFrom && rewritten === 'local') await repo.clearPurged(record.trackingRef);
    step('indexing what came in');
    const incoming = await repo.commitsBetween(record.from ?? null, record.to ?? record.from ?? '');
    const done = await finishSync({ ...deps, repository: repo }, record);
    return {
      place: 'own',
      remote,
      branch,
      committed,
      incoming: { ...(record.to && record.to !== record.from ? incoming : { commits: 0, forgets: 0 }), ...done.changes },
      outgoing: { commits: outgoing },
      ...(rewritten ? { rewritten } : {}),
      index: {
        embedded: done.index.embedded,
        upserted: done.index.upserted,
        deleted: done.index.deleted,
        ...(done.purge ? { purged: done.purge.index } : {}),
      },
      ...(settled ? { settled } : {}),
    };
  });
}

/** A merge or rebase the person started is theirs to finish: staging everything would mark its conflicts resolved. */
async function refuseDuringOperation(repo: MemoryRepository, root: string): Promise<void> {
  const op = await repo.operationInProgress();
  if (op) throw new MemError(`a git ${op} is in progress in ${root}: finish it (or abort it), then run mem sync again; nothing was changed`);
}
