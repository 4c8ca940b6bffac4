// AccessStats as one JSON file under `.mem/`; best effort: a busy lock skips an update rather than delay a search.
import { readFileSync, statSync, type Stats } from 'node:fs';
import writeFileAtomic from 'write-file-atomic';

import type { AccessRecord, AccessStats } from '../../services/ports.js';
import { FileLock } from './file-lock.js';
import { stateLayoutAt } from '../../memory/layout.js';
import { ensureStateDir } from './state-dir.js';

export class JsonAccessStats implements AccessStats {
  private readonly file: string;
  private readonly lock: FileLock;
  private pending: Promise<unknown> = Promise.resolve();

  /** `stateDir`: the root's `.mem/` (see stateDirOf). */
  constructor(private readonly stateDir: string) {
    const layout = stateLayoutAt(stateDir);
    this.file = layout.access;
    this.lock = new FileLock(layout.dir, 'access', 2_000);
  }

  /** The file as last read or written by this process, by the identity of the file it was read from. */
  private known: { file: string; all: Record<string, AccessRecord> } | undefined;

  // Read at once, not through the thread pool: every search reads the file between its retrieval and its ranking, and
  // on a busy machine the pool's round trips cost more than reading the file (one entry per memory ever returned).
  // A daemon reads it for every search: while the file is the one it read or wrote last (the same inode, size and
  // modification time; every write replaces the file by a rename, which gives it a new inode), it is not parsed again.
  private load(): Record<string, AccessRecord> {
    try {
      const file = identity(statSync(this.file));
      if (this.known?.file === file) return this.known.all;
      const all = JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, AccessRecord>;
      // Read after the stat: a write between them is newer than the identity kept, so the next load parses again.
      this.known = { file, all };
      return all;
    } catch {
      this.known = undefined;
      return {};
    }
  }

  async get(keys: string[]): Promise<Map<string, AccessRecord>> {
    const all = this.load();
    return new Map(keys.filter((k) => all[k]).map((k) => [k, all[k]!]));
  }

  private async update(change: (all: Record<string, AccessRecord>) => void): Promise<void> {
    await ensureStateDir(this.stateDir);
    await this.lock.run(async () => {
      // A copy: the entries kept stay as they were read until the new file is written.
      const all = { ...this.load() };
      change(all);
      await writeFileAtomic(this.file, JSON.stringify(all), { mode: 0o600 });
      // Under the lock, so no other writer's file can be taken for this one.
      this.known = { file: identity(statSync(this.file)), all };
    });
  }

  /** Off the search's critical path: the update runs in the background and settle() awaits it. */
  touch(keys: string[], at: number): void {
    if (keys.length === 0) return;
    const update = this.update((all) => {
      for (const k of keys) all[k] = { lastAccessed: at, count: (all[k]?.count ?? 0) + 1 };
    }).catch(() => undefined); // Statistics must never fail a search.
    this.pending = this.pending.then(() => update);
  }

  async settle(): Promise<void> {
    await this.pending;
  }

  async retain(keep: Set<string>): Promise<number> {
    let removed = 0;
    await this.update((all) => {
      for (const k of Object.keys(all))
        if (!keep.has(k)) {
          delete all[k];
          removed++;
        }
    });
    return removed;
  }

  async remove(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.update((all) => {
      for (const k of keys) delete all[k];
    });
  }
}

const identity = (s: Stats) => `${s.ino}:${s.size}:${s.mtimeMs}`;
