// The daemon's open roots: each root's Memory opened on its first request, told apart from a root replaced on disk
// since (another root id), and closed when idle, gone or at exit; a root is never closed under a search running on it.
import type { Memory } from '../services/facade.js';

export interface OpenedRoot {
  memory: Promise<Memory>;
  usedAt: number;
  /** Searches running on it: a root is not closed under them. */
  busy: number;
  /** The memory once opened: index calls go only to a root that is. */
  ready?: Memory;
  /** The root's identity once opened (OpenRootsOptions.identityOf). */
  identity?: string;
}

export interface OpenRootsOptions {
  /** Opens the memory of a root under the daemon's configuration. */
  open: (root: string) => Promise<Memory>;
  onLog: (line: string) => void;
  /** The root's identity on disk now (its root id): another one means the root was replaced. */
  identityOf?: (root: string) => string;
  /** A root starts opening (its warm-up is scheduled, `user` first). */
  onOpening: (root: string, user?: string) => void;
  /** A root is being closed (what is left of its warm-up is dropped). */
  onClosing: (root: string) => void;
}

export class OpenRoots {
  private readonly roots = new Map<string, OpenedRoot>();
  /** Every root opened since the daemon started: it counts as served. */
  readonly seen = new Set<string>();

  constructor(private readonly options: OpenRootsOptions) {}

  get(root: string): OpenedRoot | undefined {
    return this.roots.get(root);
  }

  /** The open roots, in opening order (closing one while iterating is safe). */
  entries(): IterableIterator<[string, OpenedRoot]> {
    return this.roots.entries();
  }

  paths(): string[] {
    return [...this.roots.keys()];
  }

  /** Each opened root's identity as it was when opened (roots still opening have none yet). */
  identities(): Record<string, string> {
    return Object.fromEntries([...this.roots].flatMap(([root, o]) => (o.identity === undefined ? [] : [[root, o.identity]])));
  }

  /** Closes the root's memory if it is open: whether it was. */
  async close(root: string, why: string): Promise<boolean> {
    const opened = this.roots.get(root);
    if (!opened) return false;
    this.roots.delete(root);
    this.options.onClosing(root);
    this.options.onLog(`closing ${root}: ${why}`);
    await opened.memory.then((m) => m.close()).catch(() => undefined);
    return true;
  }

  /** The root's open memory, opened (and queued for warm-up, `user` first) if it is not. */
  memoryOf(root: string, user?: string): OpenedRoot {
    let opened = this.roots.get(root);
    if (!opened) {
      const { options } = this;
      this.seen.add(root);
      // Opened on the next turn: by then the root is registered and queued for warm-up, whatever `open` does first.
      const entry: OpenedRoot = { memory: Promise.resolve().then(() => options.open(root)), usedAt: Date.now(), busy: 0 };
      entry.memory
        .then((m) => {
          entry.ready = m;
          entry.identity = options.identityOf?.(root);
        })
        .catch(() => undefined);
      opened = entry;
      // A root that failed to open is not kept: its next search tries again.
      opened.memory.catch(() => this.roots.get(root) === opened && this.roots.delete(root));
      this.roots.set(root, opened);
      // Then, in the background, one search per user, so that no user's first search pays the index's lazy loads.
      options.onOpening(root, user);
      options.onLog(`opening ${root}`);
    }
    opened.usedAt = Date.now();
    return opened;
  }

  /** The root's opening when the root was replaced on disk since (another root id now): to be closed and opened again. */
  replaced(root: string): OpenedRoot | undefined {
    const held = this.roots.get(root);
    return held?.identity !== undefined && this.options.identityOf && this.options.identityOf(root) !== held.identity ? held : undefined;
  }
}
