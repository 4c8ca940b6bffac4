// Waits until the search daemon holds a root open and ready, read from the daemon's own log (one line per search it
// answered or warm-up it ran, naming the root) instead of asking `mem server status` every 100 ms: each poll was a
// whole `mem` process competing for the CPU with the daemon it waited for, and its 2 s ping went unanswered while
// the daemon's event loop was busy loading the Milvus SDK and warming the root up.
import { readFile } from 'node:fs/promises';

import { loadConfig } from '../../src/config.js';
import { socketPath } from '../../src/daemon/protocol.js';
import { eventually } from './eventually.js';
import { cleanEnv } from './harness.js';

/**
 * The bound: starting the daemon and opening a root costs a few seconds of CPU (docs/review-round11.md, item 2), which on
 * the 2-core CI machine at a load of 10 or more stretches to a minute and beyond. A daemon that hangs, or that died,
 * still fails the wait, with its log's last lines in the message.
 */
export const DAEMON_READY_MS = 240_000;

/** The log of the daemon that serves `root` under these settings (beside its socket). */
export function daemonLog(root: string, env: Record<string, string>): string {
  return socketPath(loadConfig(cleanEnv(env), { root })).replace(/\.sock$/, '.log');
}

/** Resolves once the daemon answered a search in `root` or warmed one of its users: its memory there is open. */
export async function daemonReady(root: string, env: Record<string, string>, ms = DAEMON_READY_MS): Promise<void> {
  const log = daemonLog(root, env);
  const lines = async () => (await readFile(log, 'utf8').catch(() => '')).split('\n');
  const ready = (l: string) => (l.startsWith('search in ') || l.startsWith('warmed up ')) && l.includes(` in ${root} (`);
  try {
    await eventually(async () => (await lines()).some(ready), `the daemon to hold ${root} open`, ms, 250);
  } catch (err) {
    throw new Error(`${(err as Error).message}; the end of its log (${log}):\n${(await lines()).slice(-15).join('\n')}`);
  }
}
