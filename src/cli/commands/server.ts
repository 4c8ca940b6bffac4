// `mem server start|stop|status` and `mem setup`: control the embedded runtime's local servers.
import { localServerStatus, startLocalServers, stopLocalServers } from '../../open-memory.js';
import { configFrom } from '../context.js';
import type { GlobalOptions, Io } from '../io.js';

type ServerState = { name: string; running: boolean; pid?: number; port?: number };

function describe(servers: ServerState[]): string {
  return servers.map((s) => `${s.name}: ${s.running ? `running (pid ${s.pid}, port ${s.port})` : 'stopped'}`).join('\n');
}

export async function serverStartCommand(opts: GlobalOptions, io: Io): Promise<void> {
  const servers = await startLocalServers(configFrom(opts), { onLog: (l) => io.note(l) });
  io.result({ servers }, () => describe(servers));
}

export async function serverStopCommand(opts: GlobalOptions, io: Io): Promise<void> {
  const stopped = await stopLocalServers(configFrom(opts));
  io.result({ stopped }, () => (stopped.length ? `stopped ${stopped.join(', ')}` : 'no server was running'));
}

export async function serverStatusCommand(opts: GlobalOptions, io: Io): Promise<void> {
  const state = await localServerStatus(configFrom(opts));
  io.result(state, () => `runtime: ${state.runtime.dir} (${state.runtime.ready ? 'ready' : 'not set up'})\n${describe(state.servers)}`);
}
