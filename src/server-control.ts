// Control of a root's managed local servers (the embedded default's Milvus Lite and model server):
// their state, starting them (what `mem setup` does) and stopping them. Kept out of the composition root.
import type { MemConfig } from './config.js';
import { stateLayout } from './memory/layout.js';
import { openMemory, type OpenOptions } from './open-memory.js';

export interface LocalServerState {
  name: string;
  running: boolean;
  pid?: number;
  port?: number;
  startedAt?: string;
}

const SERVER_NAMES = ['milvus-lite', 'embedder'];

/** State of the root's managed local servers (nothing is started). */
export async function localServerStatus(config: MemConfig): Promise<{ runtime: { dir: string; ready: boolean }; servers: LocalServerState[] }> {
  const { readRecord, isAlive } = await import('./adapters/runtime/managed-server.js');
  const { runtimeInfo } = await import('./adapters/runtime/python-runtime.js');
  const stateDir = stateLayout(config.root).servers;
  const servers = await Promise.all(
    SERVER_NAMES.map(async (name) => {
      const rec = await readRecord({ stateDir, name });
      return rec && isAlive(rec.pid) ? { name, running: true, ...rec } : { name, running: false };
    }),
  );
  const info = await runtimeInfo(config.runtimeHome);
  return { runtime: { dir: info.dir, ready: info.ready }, servers };
}

/** Stops the root's managed local servers; returns the names of those that were running. */
export async function stopLocalServers(config: MemConfig): Promise<string[]> {
  const { stopServer } = await import('./adapters/runtime/managed-server.js');
  const stateDir = stateLayout(config.root).servers;
  const stopped: string[] = [];
  for (const name of SERVER_NAMES) {
    if (await stopServer({ stateDir, name, stopSignal: 'SIGINT' })) stopped.push(name);
  }
  return stopped;
}

/** Provisions the runtime and starts the local servers the configuration uses (what `mem setup` does). */
export async function startLocalServers(config: MemConfig, options: OpenOptions = {}): Promise<LocalServerState[]> {
  const memory = await openMemory(config, options);
  await memory.close();
  return (await localServerStatus(config)).servers;
}
