// What ends the daemon, or closes its roots, without a request: no client work for its idle time, its socket deleted,
// its code rebuilt, a root idle or gone from disk, every root it served gone.
import { existsSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';

import type { OpenRoots } from './open-roots.js';

/** The modification time of a file of the daemon's code ('' when it is gone, which counts as a change too). */
function codeVersion(file: string): string {
  try {
    return String(statSync(file).mtimeMs);
  } catch {
    return '';
  }
}

/** Calls `onIdle` once `ms` pass without a rearm (armed by the first). */
export function idleTimer(ms: number, onIdle: () => void): { rearm: () => void; clear: () => void } {
  let idle: NodeJS.Timeout | undefined;
  return {
    rearm: () => {
      clearTimeout(idle);
      idle = setTimeout(onIdle, ms);
    },
    clear: () => clearTimeout(idle),
  };
}

export interface WatchdogOptions {
  /** The daemon's socket. */
  path: string;
  /** A file of the daemon's own code. */
  codeFile: string;
  roots: OpenRoots;
  /** The roots the daemon was started for. */
  warm: string[];
  /** How often it looks. */
  checkMs: number;
  /** A root not searched for this long is closed. */
  rootIdleMs: number;
  onLog: (line: string) => void;
  /** Called after a root gone from disk was closed. */
  onRootGone?: (root: string) => Promise<void>;
  /** Ends the daemon. */
  stop: () => void;
}

/** Looks every `checkMs` until cleared; `cleanUps`: what it started after closing a deleted root, to await before exit. */
export function startWatchdog(o: WatchdogOptions): { clear: () => void; cleanUps: Set<Promise<unknown>> } {
  // A deleted socket leaves nobody to serve; a deleted root, or one unused for a while, is closed; and once every root
  // it has served is gone from disk, nobody is left to serve either (stop within a minute, not the idle time).
  // A daemon whose code was rebuilt (`git pull && npm install`) exits too: searches reset its idle time, so an agent
  // searching every few minutes would otherwise keep the old code answering for good.
  const cleanUps = new Set<Promise<unknown>>();
  const goneSeen = new Set<string>();
  const builtAt = codeVersion(o.codeFile);
  const watch = setInterval(() => {
    if (!existsSync(o.path)) return o.stop();
    if (codeVersion(o.codeFile) !== builtAt) {
      o.onLog(`its code changed on disk (${o.codeFile}: a rebuild or an upgrade): exiting, the next search starts the new one`);
      return o.stop();
    }
    const now = Date.now();
    for (const [root, opened] of o.roots.entries()) {
      if (existsSync(root) && opened.busy === 0 && now - opened.usedAt > o.rootIdleMs) void o.roots.close(root, 'idle');
    }
    // The roots it was started for count as served: one deleted before the daemon listened was never opened, and the
    // daemon would otherwise wait for its idle time holding nothing.
    const served = [...new Set([...o.roots.seen, ...o.warm.filter((root) => isAbsolute(root))])];
    // A served root gone from disk, open or not (one deleted as it opened failed to open): closed, then cleaned up once.
    for (const root of served) {
      if (existsSync(root)) goneSeen.delete(root);
      else if (!goneSeen.has(root)) {
        goneSeen.add(root);
        cleanUps.add(o.roots.close(root, 'gone from disk').then(() => o.onRootGone?.(root)));
      }
    }
    if (served.length > 0 && served.every((root) => !existsSync(root))) {
      o.onLog('every root served is gone from disk');
      return o.stop();
    }
  }, o.checkMs);
  watch.unref();
  return { clear: () => clearInterval(watch), cleanUps };
}
