// `mem server start|stop|status` and `mem setup`: control the embedded runtime's local servers.
import {
  forgetDaemonRecord,
  localServerStatus,
  openInDaemon,
  pruneLocalOrphans,
  recordedDaemons,
  startLocalServers,
  stopLocalServers,
  stopRecordedDaemons,
  waitForExit,
} from '../../server-control.js';
import type { VectorIndex } from '../../services/ports.js';
import { cliSettings, configFrom } from '../context.js';
import { daemonState } from '../daemon-state.js';
import type { GlobalOptions, Io } from '../io.js';

type ServerState = { name: string; running: boolean; pid?: number; port?: number; rssBytes?: number };

function describe(servers: ServerState[]): string {
  const rss = (s: ServerState) => (s.rssBytes ? `, ${Math.round(s.rssBytes / 1048576)} MiB` : '');
  return servers.map((s) => `${s.name}: ${s.running ? `running (pid ${s.pid}${s.port ? `, port ${s.port}` : ''}${rss(s)})` : 'stopped'}`).join('\n');
}

export async function daemonCommand(opts: GlobalOptions & { warmUser?: string }, io: Io): Promise<void> {
  const [{ runDaemon }, { openMemory, stateLayoutOf }, { rootUsers }, { readFileSync }] = await Promise.all([
    import('../../daemon/server.js'),
    import('../../open-memory.js'),
    import('../../daemon/warm-up.js'),
    import('node:fs'),
  ]);
  // Every root gets the configuration this process was started with (the first client's environment), its own root aside:
  // a client under other settings has another socket (adapters/daemon/protocol.ts), so it never reaches this daemon.
  const config = configFrom(opts);
  const idleMs = cliSettings().daemonIdleMs;
  // Each root's index, for the index calls of `mem` processes (small writes: adapters/daemon/daemon-index.ts).
  const indexes = new WeakMap<object, VectorIndex>();
  const open = async (root: string) => {
    let index: VectorIndex | undefined;
    // Its own calls go to its own client, never to a daemon (itself).
    // A root deleted before or while it opens is not made anew (the daemon would then serve an empty ghost of it).
    const memory = await openMemory(configFrom({ ...opts, root }), {
      onLog: (l) => io.note(l),
      indexThroughDaemon: false,
      existingRoot: true,
      wrapIndex: (i) => (index = i),
    });
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
  // Its record (written by the process that started it) goes with it; a daemon killed leaves one that readers drop.
  try {
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
      // A deleted root's collection holds its memories' text: dropped from the running Milvus Lite once it is closed.
      onRootGone: async (root) => {
        const dropped = await pruneLocalOrphans(config, { start: false }).catch((err: unknown) => {
          io.note(`could not drop the index of ${root} (gone from disk): ${err instanceof Error ? err.message : String(err)}`);
          return [];
        });
        if (dropped.length > 0) io.note(`dropped the index of deleted roots: ${dropped.map((d) => d.collection).join(', ')}`);
      },
    });
  } finally {
    await forgetDaemonRecord(config, process.pid);
  }
}

export async function serverStartCommand(opts: GlobalOptions, io: Io): Promise<void> {
  const servers = await startLocalServers(configFrom(opts), { onLog: (l) => io.note(l) });
  io.result({ servers }, () => describe(servers));
}

/** How long `mem server stop --all` waits for a daemon's answer. */
const BUSY_DAEMON_MS = 30_000;

/** Waits (at most BUSY_DAEMON_MS) until each recorded daemon of this configuration's socket answers, or has exited. */
async function listening(config: ReturnType<typeof configFrom>): Promise<void> {
  const [{ askDaemon }, { socketPath }, { setTimeout: sleep }] = await Promise.all([
    import('../../adapters/daemon/client.js'),
    import('../../adapters/daemon/protocol.js'),
    import('node:timers/promises'),
  ]);
  let socket: string;
  try {
    socket = socketPath(config);
  } catch {
    return; // no socket folder: no daemon either
  }
  const deadline = Date.now() + BUSY_DAEMON_MS;
  while (Date.now() < deadline) {
    const starting = (await recordedDaemons(config)).filter((d) => d.socket === socket);
    if (starting.length === 0 || (await askDaemon(config, 'ping', undefined, 1_000))?.ok) return;
    await sleep(100);
  }
}

export async function serverStopCommand(opts: GlobalOptions & { all?: boolean }, io: Io): Promise<void> {
  const config = configFrom(opts);
  const { askDaemon, daemonsOfHome, stopDaemonAt } = await import('../../adapters/daemon/client.js');
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
    // And those still starting (a search that just ran started one; its socket does not answer yet): by their records.
    daemons += await stopRecordedDaemons(config);
    if (daemons) stopped.push('memd');
  } else {
    // A daemon that a search just started would open this root after the stop and start the servers again: it is
    // waited for until it listens, then asked to close the root like any other.
    await listening(config);
    const answer = await askDaemon(config, 'release', undefined, 20_000);
    if (answer?.ok && answer.released) stopped.push('memd (this root)');
  }
  stopped.push(...(await stopLocalServers(config, { all: Boolean(opts.all) })));
  // Without --all, the shared servers keep running while another root uses them: say so, not "no server was running".
  const after = opts.all ? undefined : await localServerStatus(config);
  const keptRunning = after?.servers.filter((s) => s.running).map((s) => s.name) ?? [];
  const otherRoots = after?.roots.filter((r) => r.state === 'active' && !r.current).length ?? 0;
  io.result({ stopped, ...(opts.all ? {} : { keptRunning }) }, () => {
    // The daemon only closed this root: it keeps serving the others until its idle time.
    const closed = stopped.includes('memd (this root)');
    const names = stopped.filter((name) => name !== 'memd (this root)');
    const lines = [
      ...(closed ? ['memd closed this root (it keeps serving other roots until idle)'] : []),
      ...(names.length ? [`stopped ${names.join(', ')}`] : []),
      ...(keptRunning.length
        ? [
            `still running: ${keptRunning.join(', ')} (${otherRoots ? `used by ${otherRoots} other root${otherRoots === 1 ? '' : 's'}` : 'in use'}; \`mem server stop --all\` stops them)`,
          ]
        : []),
    ];
    return lines.length ? lines.join('\n') : 'no server was running';
  });
}

export async function serverStatusCommand(opts: GlobalOptions, io: Io): Promise<void> {
  const config = configFrom(opts);
  const state = await localServerStatus(config);
  const { daemon, identities } = await daemonState(config);
  const held = daemon.roots ?? [];
  // Matched by the root id the daemon opened each path with: a path's orphan collections are not open in it.
  const served = state.roots.map((r) => ({ ...r, openInMemd: openInDaemon(r, { roots: held, ...(identities ? { identities } : {}) }) }));
  const roots = served.map(
    (r) => `root ${r.root}${r.current ? ' (this one)' : ''}: collection ${r.collection}, ${r.state}${r.openInMemd ? ', open in memd' : ''}`,
  );
  io.result({ ...state, roots: served, daemon }, () =>
    [
      `runtime: ${state.runtime.dir} (${state.runtime.ready ? 'ready' : 'not set up'})`,
      `servers' home: ${state.home}`,
      describe([...state.servers, daemon]) +
        (daemon.running ? `, ${held.length} root${held.length === 1 ? '' : 's'} open${daemon.warming ? `, warming up (${daemon.warming} left)` : ''}` : ''),
      ...roots,
      ...(served.some((r) => r.state === 'orphan') ? ['orphan collections hold the memories of roots gone from disk: `mem server prune` drops them'] : []),
    ].join('\n'),
  );
}

export async function serverPruneCommand(opts: GlobalOptions, io: Io): Promise<void> {
  const dropped = await pruneLocalOrphans(configFrom(opts));
  io.result({ dropped }, () =>
    dropped.length === 0
      ? 'no collection of a deleted root to drop'
      : dropped.map((d) => `dropped ${d.collection} (root ${d.root}, gone from disk)`).join('\n'),
  );
}
