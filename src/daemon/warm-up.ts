// The daemon's warm-up plan: which users' searches warm a root's index and when. The user whose search started the
// daemon goes first; the root's other users follow one at a time, each only after a quiet moment with no search
// running, so that a user's search never queues behind (nor starts beside) a warm-up of other users.
import { readdirSync } from 'node:fs';

import { isValidUserId } from '../memory/ids.js';

/**
 * Milvus Lite builds a segment's BM25 index on the first search that reaches it (engine/collection.py, _search_sparse),
 * and a user's search reaches only its own partition: each user's first search paid for it (10,000 files, load ~19:
 * median 1.8-2.1 s against 1.0-1.1 s for the user's next). One small search per user
 * (results unused, not counted as an access) builds that user's partition. The word matters not: every segment
 * reached is indexed before it is searched. The first user's is a full search (the query embedding and the dense
 * requests warm up too); the others need only BM25, the lazy part, which keeps each step short.
 */
export function warmUpSearch(user: string, first: boolean) {
  return { query: 'memory', user, k: 1, track: false, ...(first ? {} : { mode: 'bm25' as const }) };
}

/**
 * The users whose memories a root's folders hold: its first-level folders that are valid user ids (docs/format.md: the
 * folder names the user), plus `extra` (the owner of files at the root). A root that cannot be read has none.
 */
export function rootUsers(root: string, extra: string[] = []): string[] {
  let names: string[];
  try {
    names = readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name.normalize('NFC'));
  } catch {
    names = [];
  }
  return [...new Set([...names, ...extra])].filter(isValidUserId).sort();
}

export interface WarmUpOptions {
  /** One warm-up search of `user` in `root` (its failure is ignored: that user's first search builds the index). */
  warm: (root: string, user: string, first: boolean) => Promise<unknown>;
  /** A step starts only once no search has run for this long. */
  quietMs: number;
  now?: () => number;
}

interface Step {
  root: string;
  user: string;
  first: boolean;
}

/** The queue of warm-up searches of every open root, run one at a time between the daemon's searches. */
export class WarmUpQueue {
  private readonly pending: Step[] = [];
  private running: Step | null = null;
  private searches = 0;
  private lastSearch = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly options: WarmUpOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Queues a root's users: `first` (the user of the search that opened it) ahead of everything, the others last. */
  add(root: string, users: string[], first?: string): void {
    const queued = (u: string) => this.pending.some((s) => s.root === root && s.user === u) || (this.running?.root === root && this.running.user === u);
    if (first !== undefined) {
      this.forget((s) => s.root === root && s.user === first);
      if (!queued(first)) this.pending.unshift({ root, user: first, first: true });
    }
    for (const user of users) if (!queued(user)) this.pending.push({ root, user, first: false });
    this.schedule();
  }

  /**
   * A search of `user` in `root` starts: no step starts until it ends and the daemon has been quiet for quietMs, and
   * that user's own step is dropped (the search builds the partition's index itself: a step beside it would do it twice).
   */
  searchStarted(root: string, user: string | undefined): void {
    this.searches++;
    if (user !== undefined) this.forget((s) => s.root === root && s.user === user);
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** A search ended: that user's partition is warm (its own search built it), and the quiet time starts again. */
  searchEnded(root: string, user: string | undefined): void {
    this.searches = Math.max(0, this.searches - 1);
    this.lastSearch = this.now();
    if (user !== undefined) this.forget((s) => s.root === root && s.user === user);
    this.schedule();
  }

  /** A root closed: its pending steps go (it is queued again when it opens again). */
  drop(root: string): void {
    this.forget((s) => s.root === root);
  }

  /** How many warm-up searches are left, the running one included: 0 once the daemon is warm. */
  remaining(): number {
    return this.pending.length + (this.running ? 1 : 0);
  }

  /** No more steps (the daemon stops). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.length = 0;
  }

  private forget(which: (s: Step) => boolean): void {
    for (let i = this.pending.length - 1; i >= 0; i--) if (which(this.pending[i]!)) this.pending.splice(i, 1);
  }

  private schedule(): void {
    if (this.running || this.searches > 0 || this.pending.length === 0 || this.timer) return;
    const wait = this.lastSearch + this.options.quietMs - this.now();
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.next();
      },
      Math.max(0, wait),
    );
    this.timer.unref();
  }

  private next(): void {
    if (this.running || this.searches > 0) return;
    if (this.now() - this.lastSearch < this.options.quietMs) return this.schedule();
    const step = this.pending.shift();
    if (!step) return;
    this.running = step;
    void this.options
      .warm(step.root, step.user, step.first)
      .catch(() => undefined)
      .then(() => {
        this.running = null;
        this.schedule();
      });
  }
}
