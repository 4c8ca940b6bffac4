// WriteLock across processes: proper-lockfile on a lock folder, retried while another holder works.
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import lockfile from 'proper-lockfile';

import { LockTimeoutError } from '../../errors.js';
import type { WriteLock } from '../../services/ports.js';

export class FileLock implements WriteLock {
  private readonly holder = new AsyncLocalStorage<FileLock>();
  // Serialises callers inside this process before they compete for the file lock.
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    /** Folder that holds the lock (created on demand), e.g. the root's `.mem/`. */
    private readonly dir: string,
    private readonly name = 'write',
    private readonly waitMs = 300_000,
  ) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    // Re-entrant: a service that holds the lock may call another that asks for it.
    if (this.holder.getStore() === this) return fn();
    const turn = this.queue.then(() => this.holder.run(this, () => this.acquireAndRun(fn)));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async acquireAndRun<T>(fn: () => Promise<T>): Promise<T> {
    await mkdir(this.dir, { recursive: true });
    // proper-lockfile keys its in-process state by the locked path: one path per lock name
    // (it need not exist; the lock itself is the folder `<path>.lock`).
    const target = join(this.dir, this.name);
    let release: () => Promise<void>;
    try {
      release = await lockfile.lock(target, {
        realpath: false,
        stale: 30_000,
        update: 5_000,
        retries: { retries: Math.ceil(this.waitMs / 250), factor: 1, minTimeout: 100, maxTimeout: 250, randomize: true },
      });
    } catch (err) {
      throw new LockTimeoutError(`another memdir process holds ${target}.lock; gave up waiting`, { cause: err });
    }
    try {
      return await fn();
    } finally {
      await release().catch(() => undefined);
    }
  }
}
