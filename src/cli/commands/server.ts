// `mem server start|stop|status` and `mem setup`: control the embedded runtime's local servers.
import { localServerStatus, servedRoots, startLocalServers, stopLocalServers, waitForExit } from '../../server-control.js';
import { configFrom, withMemory } from '../context.js';
import type { GlobalOptions, Io } from '../io.js';

type ServerState = { name: string; running: boolean; pid?: number; port?: number; rssBytes?: number };

function describe(servers: ServerState[]): string {
  const rss = (s: ServerState) => (s.rssBytes ? `, ${Math.round(s.rssBytes / 1048576)} MiB` : '');
  return servers.map((s) => `${s.name}: ${s.running ? `running (pid ${s.pid}${s.port ? `, port ${s.port}` : ''}${rss(s)})` : 'stopped'}`).join('\n');
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

export async function serverStopCommand(opts: GlobalOptions & { all?: boolean }, io: Io): Promise<void> {
  const config = configFrom(opts);
  const { askDaemon } = await import('../../daemon/client.js');
  // The search daemons first (they would otherwise start the servers again), each waited for until it has exited.
  const roots = opts.all ? [...new Set([config.root, ...(await servedRoots(config))])] : [config.root];
  let daemons = 0;
  for (const root of roots) {
    const answer = await askDaemon({ ...config, root }, 'stop', undefined, 5_000);
    if (!answer?.ok) continue;
    daemons++;
    if ('pid' in answer && answer.pid) await waitForExit(answer.pid);
  }
  const stopped = [...(daemons ? ['memd'] : []), ...(await stopLocalServers(config, { all: Boolean(opts.all) }))];
  io.result({ stopped }, () => (stopped.length ? `stopped ${stopped.join(', ')}` : 'no server was running'));
}

export async function serverStatusCommand(opts: GlobalOptions, io: Io): Promise<void> {
  const config = configFrom(opts);
  const state = await localServerStatus(config);
  const { askDaemon } = await import('../../daemon/client.js');
  const ping = await askDaemon(config, 'ping', undefined, 2_000);
  const daemon: ServerState = ping?.ok && ping.pid ? { name: 'memd', running: true, pid: ping.pid } : { name: 'memd', running: false };
  const roots = state.roots.map((r) => `root ${r.root}${r.current ? ' (this one)' : ''}: collection ${r.collection}, ${r.state}`);
  io.result({ ...state, daemon }, () =>
    [
      `runtime: ${state.runtime.dir} (${state.runtime.ready ? 'ready' : 'not set up'})`,
      `servers' home: ${state.home}`,
      describe([...state.servers, daemon]),
      ...roots,
    ].join('\n'),
  );
}
