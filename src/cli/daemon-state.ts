// The search daemon as `mem server status` and `mem status` show it: running or not, its pid, memory and open roots.
import type { MemConfig } from '../config.js';
import { residentBytes } from '../server-control.js';

export interface DaemonState {
  name: 'memd';
  running: boolean;
  pid?: number;
  rssBytes?: number;
  /** The roots it has open (every root searched under this configuration, not only this one). */
  roots?: string[];
  /** Warm-up searches still to run (0: every open root's users are warm). */
  warming?: number;
}

/** The daemon of this configuration, and the root id it opened each root with (not printed: for openInDaemon). */
export async function daemonState(config: MemConfig, timeoutMs = 2_000): Promise<{ daemon: DaemonState; identities?: Record<string, string> }> {
  const { askDaemon } = await import('../adapters/daemon/client.js');
  const ping = await askDaemon(config, 'ping', undefined, timeoutMs);
  if (!ping?.ok || !ping.pid) return { daemon: { name: 'memd', running: false } };
  const rssBytes = await residentBytes(ping.pid);
  return {
    daemon: {
      name: 'memd',
      running: true,
      pid: ping.pid,
      ...(rssBytes ? { rssBytes } : {}),
      roots: ping.roots ?? [],
      ...(ping.warming !== undefined ? { warming: ping.warming } : {}),
    },
    ...(ping.identities ? { identities: ping.identities } : {}),
  };
}
