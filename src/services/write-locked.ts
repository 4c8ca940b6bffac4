// How every writing use case runs: under the write lock, after settling what a killed process left unfinished (a
// write of memory files, or a `mem sync` mid-merge), so it never starts from a half-done state.
import { settleInterruptedWrite } from './core/interrupted-write.js';
import type { DepsUsing } from './core/deps.js';
import type { PurgeIndex } from './core/purge.js';
import { settleInterruptedSync } from './git-sync/finish.js';

export function writeLocked<T>(deps: DepsUsing<PurgeIndex>, fn: () => Promise<T>): Promise<T> {
  return deps.lock.run(async () => {
    await settleInterruptedWrite(deps);
    await settleInterruptedSync(deps);
    return fn();
  });
}
