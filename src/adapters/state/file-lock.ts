// WriteLock across processes: proper-lockfile on a lock folder, retried while another holder works;
// a lock whose holder died (killed, crashed) is taken over at once instead of after the 30 s staleness.
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import lockfile from 'proper-lockfile';

import { LockTimeoutError } from '../../errors.js';
import type { WriteLock } from '../../services/ports.js';
import { makeStateFolder } from './state-dir.js';
import { isAlive } from './process-alive.js';

// proper-lockfile refreshes a held lock's mtime every UPDATE_MS; one not refreshed for STALE_MS is abandoned.
const STALE_MS = 30_000;
const UPDATE_MS = 5_000;

/** Beside the lock folder (proper-lockfile wants the folder itself untouched): who holds which instance of it. */
interface Owner {
  pid: number;
  host: string;
  /** The lock folder's inode and birth time: inodes are reused at once, so both tell this folder from a later one. */
  instance: string;
}

const instanceOf = (st: { ino: number; birthtimeMs: number }) => `${st.ino}:${st.birthtimeMs}`;

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
    await makeStateFolder(this.dir);
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      await release().catch(() => undefined);
    }
  }

  private async acquire(): Promise<() => Promise<void>> {
    // proper-lockfile keys its in-process state by the locked path: one path per lock name
    // (it need not exist; the lock itself is the folder `<path>.lock`).
    const target = join(this.dir, this.name);
    const lockDir = `${target}.lock`;
    const ownerFile = `${target}.owner`;
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      try {
        const release = await lockfile.lock(target, { realpath: false, stale: STALE_MS, update: UPDATE_MS, retries: 0 });
        const st = await stat(lockDir).catch(() => null);
        const owner: Owner = { pid: process.pid, host: hostname(), instance: st ? instanceOf(st) : '' };
        await writeFile(ownerFile, JSON.stringify(owner), { mode: 0o600 }).catch(() => undefined);
        return async () => {
          await rm(ownerFile, { force: true });
          await release();
        };
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ELOCKED') throw err;
      }
      if (await this.breakIfAbandoned(lockDir, ownerFile)) continue;
      if (Date.now() >= deadline) throw new LockTimeoutError(`another memdir process holds ${lockDir}; gave up waiting`);
      await sleep(100 + Math.random() * 150);
    }
  }

  /**
   * Removes the lock folder if its holder was a process of this host that no longer runs. Breakers
   * take turns under a second lock and look again there, so none removes a lock another waiter has
   * just taken. Locks not refreshed for STALE_MS are left to proper-lockfile, which removes them itself.
   */
  private async breakIfAbandoned(lockDir: string, ownerFile: string): Promise<boolean> {
    if (!(await isAbandoned(lockDir, ownerFile))) return false;
    let release: () => Promise<void>;
    try {
      release = await lockfile.lock(`${lockDir}-break`, { realpath: false, stale: STALE_MS, update: UPDATE_MS, retries: 0 });
    } catch {
      return false; // another waiter is breaking it
    }
    try {
      if (!(await isAbandoned(lockDir, ownerFile))) return false;
      await rm(ownerFile, { force: true });
      await rm(lockDir, { recursive: true, force: true });
      return true;
    } finally {
      await release().catch(() => undefined);
    }
  }
}

/** Held by a process of this host that is gone, and young enough that proper-lockfile will not remove it meanwhile. */
async function isAbandoned(lockDir: string, ownerFile: string): Promise<boolean> {
  const st = await stat(lockDir).catch(() => null);
  if (!st || Date.now() - st.mtimeMs > STALE_MS - UPDATE_MS) return false;
  const owner = await readOwner(ownerFile);
  // An owner record of an earlier lock folder says nothing about this one (its holder may not have written it yet).
  if (!owner || st.birthtimeMs === 0 || owner.instance !== instanceOf(st) || owner.host !== hostname()) return false;
  return Number.isInteger(owner.pid) && !isAlive(owner.pid);
}

/** The owner record, or null if there is none or it is being written right now. */
async function readOwner(file: string): Promise<Owner | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Owner;
  } catch {
    return null;
  }
}
