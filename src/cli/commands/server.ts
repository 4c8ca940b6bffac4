// `mem server start|stop|status` and `mem setup`: control the embedded runtime's local servers.
import { localServerStatus, startLocalServers, stopLocalServers } from '../../server-control.js';
import { configFrom, withMemory } from '../context.js';
import type { GlobalOptions, Io } from '../io.js';

type ServerState = { name: string; running: boolean; pid?: number; port?: number };

function describe(servers: ServerState[]): string {
  return servers.map((s) => `${s.name}: ${s.running ? `running (pid ${s.pid}${s.port ? `, port ${s.port}` : ''})` : 'stopped'}`).join('\n');
}

export async function daemonCommand(opts: GlobalOptions, io: Io): Promise<void> {
  const { runDaemon } = await import('../../daemon/server.js');
  const config = configFrom(opts);
  await withMemory(opts, io, (memory) => runDaemon(memory, config, { idleMs: 15 * 60_000, onLog: (l) => io.note(l) }));
}

export async function serverStartCommand(opts: GlobalOptions, io: Io): Promise<void> {
  const servers = await startLocalServers(configFrom(opts), { onLog: (l) => io.note(l) });
  io.result({ servers }, () => describe(servers));
}

export async function serverStopCommand(opts: GlobalOptions, io: Io): Promise<void> {
  const config = configFrom(opts);
  const { askDaemon } = await import('../../daemon/client.js');
  const daemon = await askDaemon(config, 'stop', undefined, 5_000);
  const stopped = [...(daemon?.ok ? ['memd'] : []), ...(await stopLocalServers(config))];
  io.result({ stopped }, () => (stopped.length ? `stopped ${stopped.join(', ')}` : 'no server was running'));
}

export async function serverStatusCommand(opts: GlobalOptions, io: Io): Promise<void> {
  const config = configFrom(opts);
  const state = await localServerStatus(config);
  const { askDaemon } = await import('../../daemon/client.js');
  const ping = await askDaemon(config, 'ping', undefined, 2_000);
  const daemon: ServerState = ping?.ok && ping.pid ? { name: 'memd', running: true, pid: ping.pid } : { name: 'memd', running: false };
  io.result(
    { ...state, daemon },
    () => `runtime: ${state.runtime.dir} (${state.runtime.ready ? 'ready' : 'not set up'})\n${describe([...state.servers, daemon])}`,
  );
}
