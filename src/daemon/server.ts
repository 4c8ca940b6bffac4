// The search daemon (`mem daemon`): one per user and servers' home, serving every root searched under its
// configuration. It keeps an open Memory per root (SDK loaded, servers connected, model and index warm) and answers
// searches over its Unix socket, so `mem search` skips seconds of start-up. A root unused for a while (or deleted) is
// closed; the daemon exits after a quiet period, or on SIGTERM/SIGINT. This composes its parts: the socket's framing,
// the open roots, the warm-up queue, the request dispatcher and the watchdog.
import { existsSync, rmSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';

import { socketPath, type DaemonTarget } from '../adapters/daemon/protocol.js';
import type { Memory } from '../services/facade.js';
import { dispatcher } from './dispatch.js';
import type { ServedIndex } from './index-requests.js';
import { lineServer, listenAt } from './framing.js';
import { OpenRoots } from './open-roots.js';
import { WarmUpQueue, rootUsers, warmUpSearch } from './warm-up.js';
import { idleTimer, startWatchdog } from './watchdog.js';

export interface DaemonOptions {
  /** No request for this long: the daemon exits. */
  idleMs: number;
  /** A root not searched for this long is closed (opened again by its next search). */
  rootIdleMs: number;
  /** How often roots are checked for idleness and for being gone from disk. */
  checkMs?: number;
  onLog: (line: string) => void;
  /** Roots opened as soon as the daemon listens (the root of the search that started it): its next search is warm. */
  warm?: string[];
  /** The user of the search that started the daemon: warmed first in the roots of `warm`. */
  warmUser?: string;
  /** The users a root's warm-up searches (default: its user folders, rootUsers). */
  usersOf?: (root: string) => string[];
  /** A warm-up search of another user starts only after this long without a search (default WARM_UP_QUIET_MS). */
  warmQuietMs?: number;
  /** Called after a root gone from disk was closed (the CLI drops the collections of deleted roots). */
  onRootGone?: (root: string) => Promise<void>;
  /** The index of an open root's memory, for index calls of `mem` processes (none: every index call is declined). */
  indexOf?: (memory: Memory) => ServedIndex | undefined;
  /** A file of the daemon's own code (default: this module's): rewritten by a build or an upgrade, the daemon exits. */
  codeFile?: string;
  /**
   * The root's identity on disk now (its root id, which names its collection). A root whose `.mem/` was removed, or
   * another folder put at its path, has another: its open memory searches an index nobody writes any more.
   */
  identityOf?: (root: string) => string;
}

/** Opens the memory of a root under the daemon's configuration (the caller's composition). */
export type OpenRoot = (root: string) => Promise<Memory>;

/**
 * The quiet time before a warm-up step: longer than the pause between two searches of a script or a hook (the next
 * `mem search` connects ~100-200 ms after the last answered), so a warm-up rarely runs beside a search.
 */
export const WARM_UP_QUIET_MS = 500;

/** Serves the roots searched under `target`'s configuration (each opened with `open`, all closed before this returns) until stopped or idle. */
export async function runDaemon(open: OpenRoot, target: DaemonTarget, options: DaemonOptions): Promise<void> {
  const path = socketPath(target);
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  // One user at a time, between searches: each user's first search then finds its partition's index built.
  const warmUp = new WarmUpQueue({
    quietMs: options.warmQuietMs ?? WARM_UP_QUIET_MS,
    warm: async (root, user, first) => {
      const opened = roots.get(root);
      // A root deleted since it was opened is not searched: that would write its state folder back.
      if (!opened || !existsSync(root)) return;
      const started = Date.now();
      await (await opened.memory).search(warmUpSearch(user, first));
      options.onLog(`warmed up ${user} in ${root} (${Date.now() - started} ms)`);
    },
  });
  const usersOf = options.usersOf ?? ((root: string) => rootUsers(root));
  const roots = new OpenRoots({
    open,
    onLog: options.onLog,
    identityOf: options.identityOf,
    onOpening: (root, user) => warmUp.add(root, usersOf(root), user),
    onClosing: (root) => warmUp.drop(root),
  });
  const idle = idleTimer(options.idleMs, () => stop());
  const answer = dispatcher({ target, roots, warmUp, onLog: options.onLog, indexOf: options.indexOf, stop: () => stop(), rearm: idle.rearm });

  const server = lineServer(answer);
  if (!(await listenAt(server, path))) return; // another daemon serves these roots
  options.onLog(`memd listening on ${path} (pid ${process.pid})`);
  idle.rearm();
  for (const root of options.warm ?? []) if (isAbsolute(root) && existsSync(root)) roots.memoryOf(root, options.warmUser).memory.catch(() => undefined);
  const watchdog = startWatchdog({
    path,
    codeFile: options.codeFile ?? fileURLToPath(import.meta.url),
    roots,
    warm: options.warm ?? [],
    checkMs: options.checkMs ?? 10_000,
    rootIdleMs: options.rootIdleMs,
    onLog: options.onLog,
    onRootGone: options.onRootGone,
    stop: () => stop(),
  });
  process.once('SIGTERM', () => stop());
  process.once('SIGINT', () => stop());
  await stopped;
  warmUp.stop();
  idle.clear();
  watchdog.clear();
  server.close();
  rmSync(path, { force: true });
  await Promise.all(roots.paths().map((root) => roots.close(root, 'daemon stopping')));
  await Promise.allSettled(watchdog.cleanUps);
}
