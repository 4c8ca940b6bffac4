// Waits until the search daemon holds a root open and ready, read from the daemon's own log (one line per search it
// answered or warm-up it ran, naming the root) instead of asking `mem server status` every 100 ms: each poll was a
// whole `mem` process, its 2 s ping goes unanswered while the daemon's one event loop is busy (its own start, other
// roots' warm-ups and index calls), and a root listed is not yet open (index calls go only to an opened root).
import { readFile } from 'node:fs/promises';

import { loadConfig } from '../../src/config.js';
import { socketPath } from '../../src/adapters/daemon/protocol.js';
import { eventually } from './eventually.js';
import { cleanEnv } from './harness.js';

/**
 * The bound: alone, the daemon is ready within 10 s of the first search at a load of 10 on two cores (1.2-1.6 s of CPU,
 * docs/benchmarks.md §48); in a full run one daemon serves every file that turns it on, and 60 s were exceeded at a load
 * of 10 or more. Generous on purpose: a daemon that hangs, or that died, still fails the wait, with its log's last lines
 * in the message.
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
