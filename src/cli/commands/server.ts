// `mem server start|stop|status` and `mem setup`: control the embedded runtime's local servers.
import { localServerStatus, residentBytes, servedRoots, startLocalServers, stopLocalServers, waitForExit } from '../../server-control.js';
import type { VectorIndex } from '../../services/ports.js';
import { cliSettings, configFrom } from '../context.js';
import type { GlobalOptions, Io } from '../io.js';

type ServerState = { name: string; running: boolean; pid?: number; port?: number; rssBytes?: number };

function describe(servers: ServerState[]): string {
  const rss = (s: ServerState) => (s.rssBytes ? `, ${Math.round(s.rssBytes / 1048576)} MiB` : '');
  return servers.map((s) => `${s.name}: ${s.running ? `running (pid ${s.pid}${s.port ? `, port ${s.port}` : ''}${rss(s)})` : 'stopped'}`).join('\n');
}

export async function daemonCommand(opts: GlobalOptions & { warmUser?: string }, io: Io): Promise<void> {
  const [{ runDaemon }, { stopLegacyDaemon }, { openMemory, stateLayoutOf }, { rootUsers }, { readFileSync }] = await Promise.all([
    import('../../daemon/server.js'),
    import('../../daemon/client.js'),
    import('../../open-memory.js'),
    import('../../daemon/warm-up.js'),
    import('node:fs'),
  ]);
  // Every root gets the configuration this process was started with (the first client's environment), its own root aside:
  // a client under other settings has another socket (daemon/protocol.ts), so it never reaches this daemon.
  const config = configFrom(opts);
  const idleMs = cliSettings().daemonIdleMs;
  // Each root's index, for the index calls of `mem` processes (small writes: adapters/milvus/daemon-index.ts).
  const indexes = new WeakMap<object, VectorIndex>();
  const open = async (root: string) => {
    let index: VectorIndex | undefined;
    // Its own calls go to its own client, never to a daemon (itself).
    const memory = await openMemory(configFrom({ ...opts, root }), { onLog: (l) => io.note(l), indexThroughDaemon: false, wrapIndex: (i) => (index = i) });
    if (index) indexes.set(memory, index);
    return memory;
  };
  // A root's id file, read at every search (a few bytes): `.mem/` removed, or another folder at the root's path, gives
  // another id, and the daemon opens the root again instead of searching the collection of the old id.
  const rootIdFiles = new Map<string, string>();
  const identityOf = (root: string) => {
    let file = rootIdFiles.get(root);
    if (file === undefined) rootIdFiles.set(root, (file = stateLayoutOf(configFrom({ ...opts, root })).rootId));
    try {
      return readFileSync(file, 'utf8').trim();
    } catch {
      return '';
    }
  };
  await runDaemon(open, config, {
    indexOf: (memory) => indexes.get(memory),
    identityOf,
    idleMs,
    rootIdleMs: Math.min(idleMs, 10 * 60_000),
    warm: [config.root],
    ...(opts.warmUser === undefined ? {} : { warmUser: opts.warmUser }),
    // Each root's user folders, and the owner of its files outside them.
    usersOf: (root) => rootUsers(root, [configFrom({ ...opts, root }).defaultOwner]),
    onLog: (l) => io.note(l),
    // A root's own daemon of the previous version would otherwise keep its memory open until its idle time.
    onFirstUse: async (root) => {
      const pid = await stopLegacyDaemon({ ...config, root });
      if (pid) await waitForExit(pid);
    },
  });
}

export async function serverStartCommand(opts: GlobalOptions, io: Io): Promise<void> {
  const servers = await startLocalServers(configFrom(opts), { onLog: (l) => io.note(l) });
  io.result({ servers }, () => describe(servers));
}

/** How long `mem server stop --all` waits for a daemon's answer. */
const BUSY_DAEMON_MS = 30_000;

export async function serverStopCommand(opts: GlobalOptions & { all?: boolean }, io: Io): Promise<void> {
  const config = configFrom(opts);
  const { askDaemon, daemonsOfHome, stopDaemonAt, stopLegacyDaemon } = await import('../../daemon/client.js');
  // The search daemon first (it would otherwise start the servers again): with --all every daemon of this servers'
  // home exits, each waited for; otherwise the daemon only closes this root and keeps serving the others.
  const stopped: string[] = [];
  if (opts.all) {
    let daemons = 0;
    // A daemon that just opened a root is busy for seconds (it loads the Milvus SDK and warms the index up) and answers
    // late: a short wait would take it for gone and return while it still runs. A socket nobody listens on fails at once.
    for (const daemon of await daemonsOfHome(config, BUSY_DAEMON_MS)) {
      const pid = await stopDaemonAt(daemon.socket, BUSY_DAEMON_MS);
      if (pid) await waitForExit(pid);
      if (pid) daemons++;
    }
    if (daemons) stopped.push('memd');
  } else {
    const answer = await askDaemon(config, 'release', undefined, 20_000);
    if (answer?.ok && answer.released) stopped.push('memd (this root)');
  }
  // Roots' own daemons of the previous version (one per root).
  let legacy = 0;
  for (const root of opts.all ? [...new Set([config.root, ...(await servedRoots(config))])] : [config.root]) {
    const pid = await stopLegacyDaemon({ ...config, root });
    if (pid) await waitForExit(pid);
    if (pid) legacy++;
  }
  if (legacy) stopped.push(`memd (own${opts.all ? `, ${legacy}` : ''})`);
  stopped.push(...(await stopLocalServers(config, { all: Boolean(opts.all) })));
  io.result({ stopped }, () => (stopped.length ? `stopped ${stopped.join(', ')}` : 'no server was running'));
}

export async function serverStatusCommand(opts: GlobalOptions, io: Io): Promise<void> {
  const config = configFrom(opts);
  const state = await localServerStatus(config);
  const { askDaemon } = await import('../../daemon/client.js');
  const ping = await askDaemon(config, 'ping', undefined, 2_000);
  const rssBytes = ping?.ok && ping.pid ? await residentBytes(ping.pid) : undefined;
  // warming: the daemon's warm-up searches still to run (0: every open root's users are warm).
  const daemon: ServerState & { roots?: string[]; warming?: number } =
    ping?.ok && ping.pid
      ? {
          name: 'memd',
          running: true,
          pid: ping.pid,
          ...(rssBytes ? { rssBytes } : {}),
          roots: ping.roots ?? [],
          ...(ping.warming !== undefined ? { warming: ping.warming } : {}),
        }
      : { name: 'memd', running: false };
  const held = new Set(daemon.roots ?? []);
  const roots = state.roots.map(
    (r) => `root ${r.root}${r.current ? ' (this one)' : ''}: collection ${r.collection}, ${r.state}${held.has(r.root) ? ', open in memd' : ''}`,
  );
  io.result({ ...state, daemon }, () =>
    [
      `runtime: ${state.runtime.dir} (${state.runtime.ready ? 'ready' : 'not set up'})`,
      `servers' home: ${state.home}`,
      describe([...state.servers, daemon]) +
        (daemon.running ? `, ${held.size} root${held.size === 1 ? '' : 's'} open${daemon.warming ? `, warming up (${daemon.warming} left)` : ''}` : ''),
      ...roots,
    ].join('\n'),
  );
}
