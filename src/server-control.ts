// Control of the shared local servers (the embedded default's Milvus Lite and model server, one of each for all
// roots of the user): their state and the roots they serve, starting them (what `mem setup` does) and stopping
// a root's use of them, or all of them. Kept out of the composition root.
import type { MemConfig } from './config.js';
import { serverLayout } from './memory/layout.js';
import { openMemory, pruneOrphans, stateLayoutOf, type OpenOptions } from './open-memory.js';

export interface LocalServerState {
  name: string;
  running: boolean;
  pid?: number;
  port?: number;
  startedAt?: string;
  /** Resident memory (Linux), for `mem server status`. */
  rssBytes?: number;
}

export interface ServedRoot {
  collection: string;
  root: string;
  stateDir: string;
  usedAt: string;
  /** active: keeps the servers up; released: by `mem server stop`; orphan: the root is gone from disk (or moved). */
  state: 'active' | 'released' | 'orphan';
  /** This command's root. */
  current: boolean;
}

export interface LocalServerStatus {
  runtime: { dir: string; ready: boolean };
  /** The second model's runtime (MEM_SECOND_MODEL=mpnet served by memdir), when the configuration uses it. */
  secondRuntime?: { dir: string; ready: boolean };
  /** The folder of the shared servers' records, logs and Milvus Lite data. */
  home: string;
  servers: LocalServerState[];
  roots: ServedRoot[];
}

/** Resident memory of a process (Linux), undefined elsewhere or when it is gone. */
export async function residentBytes(pid: number): Promise<number | undefined> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
  return kb ? Number(kb) * 1024 : undefined;
}

/** The root's name in the registry of the shared servers (null before its first use). */
async function currentCollection(config: MemConfig): Promise<string | null> {
  const { readFile } = await import('node:fs/promises');
  const id = (await readFile(stateLayoutOf(config).rootId, 'utf8').catch(() => '')).trim();
  return /^[0-9a-f]{16}$/.test(id) ? `memdir_${id}` : null;
}

/**
 * Whether the search daemon has this served root's collection open: by the root id the daemon opened the path with,
 * so a path's orphan collections (of an older id: the root replaced on disk) are not; by path, orphans aside, for a
 * root still opening or a daemon that does not say.
 */
export function openInDaemon(
  root: Pick<ServedRoot, 'root' | 'collection' | 'state'>,
  daemon: { roots?: string[]; identities?: Record<string, string> },
): boolean {
  const id = daemon.identities?.[root.root];
  if (id !== undefined) return root.collection === `memdir_${id}`;
  return (daemon.roots ?? []).includes(root.root) && root.state !== 'orphan';
}

/** Waits until the process has exited (at most `waitMs`): a stopped search daemon closes its memories first. */
export async function waitForExit(pid: number, waitMs = 20_000): Promise<void> {
  const [{ isAlive }, { setTimeout: sleep }] = await Promise.all([import('./adapters/state/process-alive.js'), import('node:timers/promises')]);
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline && isAlive(pid)) await sleep(50);
}

/** A search daemon of this servers' home from its start to its exit: its pid, the kernel's start time of it, its socket. */
export interface DaemonRecord {
  pid: number;
  procStart?: string;
  socket: string;
}

/**
 * Records a search daemon just spawned, from the process that spawned it, before the daemon has run a line of its own:
 * until its socket answers (a second or more), `mem server stop` finds it only by this record. Without it, a stop right
 * after a cold search returned with the daemon still starting, which then opened its root again and restarted the
 * servers.
 */
export async function recordDaemonStart(config: Pick<MemConfig, 'serverHome'>, pid: number, socket: string): Promise<void> {
  const [{ mkdir, writeFile }, { join }, { processStartTime }] = await Promise.all([
    import('node:fs/promises'),
    import('node:path'),
    import('./adapters/runtime/process-identity.js'),
  ]);
  const dir = serverLayout(config.serverHome).daemons;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const procStart = processStartTime(pid);
  const record: DaemonRecord = { pid, socket, ...(procStart ? { procStart } : {}) };
  await writeFile(join(dir, `${pid}.json`), JSON.stringify(record), { mode: 0o600 });
}

/** Removes a daemon's record (the daemon, as it exits). */
export async function forgetDaemonRecord(config: Pick<MemConfig, 'serverHome'>, pid: number): Promise<void> {
  const [{ rm }, { join }] = await Promise.all([import('node:fs/promises'), import('node:path')]);
  await rm(join(serverLayout(config.serverHome).daemons, `${pid}.json`), { force: true });
}

/** The recorded search daemons of this home that still run (starting or listening); the records of others are removed. */
export async function recordedDaemons(config: Pick<MemConfig, 'serverHome'>): Promise<DaemonRecord[]> {
  const [{ readdir, rm }, { join }, { readJsonOrNull }, { isSameProcess }] = await Promise.all([
    import('node:fs/promises'),
    import('node:path'),
    import('./adapters/state/read-json.js'),
    import('./adapters/runtime/process-identity.js'),
  ]);
  const dir = serverLayout(config.serverHome).daemons;
  const running: DaemonRecord[] = [];
  for (const name of (await readdir(dir).catch(() => [] as string[])).filter((n) => /^\d+\.json$/.test(n))) {
    const record = (await readJsonOrNull(join(dir, name))) as DaemonRecord | null;
    // A pid that another process took since the daemon exited is neither waited for nor signalled.
    if (record && typeof record.pid === 'number' && isSameProcess(record.pid, record.procStart)) running.push(record);
    else await rm(join(dir, name), { force: true });
  }
  return running;
}

/**
 * Stops every recorded daemon of this home still running (`mem server stop --all`, after those that answered on their
 * socket): SIGTERM (a daemon still starting has nothing open; a listening one closes its roots), SIGKILL if it outlives
 * 20 s. Returns once none runs: how many there were.
 */
export async function stopRecordedDaemons(config: Pick<MemConfig, 'serverHome'>): Promise<number> {
  const { isAlive } = await import('./adapters/state/process-alive.js');
  const daemons = await recordedDaemons(config);
  for (const { pid } of daemons) {
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      if (!isAlive(pid)) break;
      try {
        process.kill(pid, signal);
      } catch {
        break; // gone meanwhile
      }
      await waitForExit(pid, signal === 'SIGTERM' ? 20_000 : 10_000);
    }
    await forgetDaemonRecord(config, pid);
  }
  return daemons.length;
}

/** State of the shared local servers and of the roots they serve (nothing is started). */
export async function localServerStatus(config: MemConfig): Promise<LocalServerStatus> {
  const [{ readRecord, isAlive }, { runtimeInfo }, { SERVER_NAMES }, { listRoots }] = await Promise.all([
    import('./adapters/runtime/managed-server.js'),
    import('./adapters/runtime/python-runtime.js'),
    import('./adapters/runtime/local-servers.js'),
    import('./adapters/runtime/root-registry.js'),
  ]);
  const layout = serverLayout(config.serverHome);
  const servers = await Promise.all(
    SERVER_NAMES.map(async (name): Promise<LocalServerState> => {
      const rec = await readRecord({ stateDir: layout.servers, name });
      if (!rec || !isAlive(rec.pid)) return { name, running: false };
      // The secret stays in its 0600 record: status output is printed, logged and pasted into issues.
      const { secret: _secret, ...shown } = rec;
      const rssBytes = await residentBytes(rec.pid);
      return { name, running: true, ...shown, ...(rssBytes ? { rssBytes } : {}) };
    }),
  );
  // The second model's server is listed when the configuration uses memdir's own, or when it runs.
  const ownSecond = config.secondModel !== undefined && !config.secondModel.baseURL;
  const listed = servers.filter((s) => s.name !== 'mpnet' || s.running || ownSecond);
  const current = await currentCollection(config);
  const roots = (await listRoots(layout)).map(({ released: _released, ...r }) => ({ ...r, current: r.collection === current }));
  const info = await runtimeInfo(config.runtimeHome);
  const second = ownSecond ? await (await import('./adapters/runtime/second-runtime.js')).secondRuntimeInfo(config.runtimeHome) : undefined;
  return { runtime: { dir: info.dir, ready: info.ready }, ...(second ? { secondRuntime: second } : {}), home: config.serverHome, servers: listed, roots };
}

/**
 * Stops the shared servers (under their start locks, so none is started meanwhile) and returns once none runs;
 * the names of those that were running. `unlessUsedBeside`: unless a root other than this one (null: any root)
 * uses them; undefined: whatever roots use them.
 */
async function stopShared(config: MemConfig, unlessUsedBeside: string | null | undefined): Promise<string[]> {
  const [{ stopServer }, { SERVER_NAMES }, { listRoots }, { FileLock }] = await Promise.all([
    import('./adapters/runtime/managed-server.js'),
    import('./adapters/runtime/local-servers.js'),
    import('./adapters/runtime/root-registry.js'),
    import('./adapters/state/file-lock.js'),
  ]);
  const layout = serverLayout(config.serverHome);
  const stopped: string[] = [];
  for (const name of SERVER_NAMES) {
    await new FileLock(layout.servers, `${name}-start`, 180_000).run(async () => {
      // Checked under the lock: a root that registered since then keeps its server.
      const used = async () => (await listRoots(layout)).some((r) => r.state === 'active' && r.collection !== unlessUsedBeside);
      if (unlessUsedBeside !== undefined && (await used())) return;
      if (await stopServer({ stateDir: layout.servers, name, stopSignal: 'SIGINT' })) stopped.push(name);
    });
  }
  return stopped;
}

/**
 * `mem server stop`: the root no longer keeps the shared servers up (released), and they stop now if no other root
 * uses them; with `all`, they stop whatever roots use them. Returns once nothing it stopped still runs: the names of the servers stopped.
 */
export async function stopLocalServers(config: MemConfig, options: { all?: boolean } = {}): Promise<string[]> {
  const { releaseRoot } = await import('./adapters/runtime/root-registry.js');
  const collection = await currentCollection(config);
  // Stopped before the root is released: released first, they could stop by themselves meanwhile (no root in use).
  const stopped = await stopShared(config, options.all ? undefined : collection);
  if (collection) await releaseRoot(serverLayout(config.serverHome), collection);
  return stopped;
}

/** Provisions the runtime and starts the local servers the configuration uses (what `mem setup` does). */
export async function startLocalServers(config: MemConfig, options: OpenOptions = {}): Promise<LocalServerState[]> {
  // Every server now, the second model's too (installed first when MEM_SECOND_MODEL=mpnet and it is not yet).
  const memory = await openMemory(config, { ...options, startAll: true });
  await memory.close();
  return (await localServerStatus(config)).servers;
}

/**
 * `mem server prune`: drops the collections of the roots gone from disk from the shared Milvus Lite (started for it if
 * it is not running: their data is on disk either way) and forgets them; what was dropped. With `start: false` (the
 * search daemon, which saw a root go), only a server already running does it.
 */
export async function pruneLocalOrphans(config: MemConfig, options: { start?: boolean } = {}): Promise<{ root: string; collection: string }[]> {
  const [{ listRoots }, { readRecord, isAlive, ensureServer }, { milvusLiteSpec }, { ensureRuntime }] = await Promise.all([
    import('./adapters/runtime/root-registry.js'),
    import('./adapters/runtime/managed-server.js'),
    import('./adapters/runtime/local-servers.js'),
    import('./adapters/runtime/python-runtime.js'),
  ]);
  const layout = serverLayout(config.serverHome);
  if (!(await listRoots(layout)).some((r) => r.state === 'orphan')) return [];
  const running = await readRecord({ stateDir: layout.servers, name: 'milvus-lite' });
  if (running && isAlive(running.pid)) return pruneOrphans(layout, running);
  if (options.start === false) return [];
  const runtime = await ensureRuntime({ home: config.runtimeHome, python: config.python });
  return pruneOrphans(layout, await ensureServer(milvusLiteSpec(runtime, layout, config.serverIdleMs)));
}
