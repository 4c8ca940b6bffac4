// Starts, finds and stops a detached local server process recorded in its servers folder, shared by
// every memdir process of the user (the first one starts it, the others reuse it).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openSync, closeSync } from 'node:fs';
import { access, chmod, mkdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import writeFileAtomic from 'write-file-atomic';

import { inheritedEnvironment } from '../../config.js';
import { RuntimeSetupError } from '../../errors.js';
import { FileLock } from '../state/file-lock.js';
import { isAlive } from '../state/process-alive.js';
import { SECRET_ENV, stoppingMarker } from './owner-only.js';
import { isSameProcess, processStartTime } from './process-identity.js';

export { isAlive };

export interface ServerSpec {
  name: string;
  /** Folder for the record, the log and the start lock. */
  stateDir: string;
  command: string;
  args: (port: number) => string[];
  env?: Record<string, string>;
  /** Whether the server answers (with the secret: a server that refuses it is not this one) within the time given. */
  isReady: (port: number, secret: string, timeoutMs?: number) => Promise<boolean>;
  readyTimeoutMs: number;
  /** The signal that stops the server cleanly. */
  stopSignal: NodeJS.Signals;
}

export interface ServerRecord {
  pid: number;
  port: number;
  /** Random per start; the server refuses every call without it. The record is readable by its owner only. */
  secret: string;
  startedAt: string;
  /** The kernel's start time of the process (Linux): a later process given the same pid is not this server. */
  procStart?: string;
}

/** How long a server that is stopping by itself may take: it kills itself 20 s after it began (owner-only.ts). */
const STOPPING_PATIENCE_MS = 30_000;

/** How long a running server may take to answer before it is replaced as deaf. */
const DEAF_AFTER_MS = 15_000;

/** Whether the recorded server process still runs (and is that process, not one that reused its pid). */
const runs = (rec: ServerRecord): boolean => isSameProcess(rec.pid, rec.procStart);

/** Whether the recorded server has decided to stop by itself (owner-only.ts writes the marker first). */
const stopping = (spec: Pick<ServerSpec, 'stateDir'>, rec: ServerRecord): Promise<boolean> =>
  access(join(spec.stateDir, stoppingMarker(rec.pid))).then(
    () => true,
    () => false,
  );

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

const recordFile = (spec: Pick<ServerSpec, 'stateDir' | 'name'>) => join(spec.stateDir, `${spec.name}.json`);
export const logFile = (spec: Pick<ServerSpec, 'stateDir' | 'name'>) => join(spec.stateDir, `${spec.name}.log`);

export async function readRecord(spec: Pick<ServerSpec, 'stateDir' | 'name'>): Promise<ServerRecord | null> {
  try {
    return JSON.parse(await readFile(recordFile(spec), 'utf8')) as ServerRecord;
  } catch {
    return null;
  }
}

/** The running server for this spec, started if there is none (or the recorded one does not answer). */
export async function ensureServer(spec: ServerSpec): Promise<ServerRecord> {
  // Callers register their root and take a lease before this: a server that decides to stop writes its marker and
  // then looks for roots and leases again, so either it sees this caller and stays, or this caller sees the marker.
  const quick = await readRecord(spec);
  if (quick?.secret && runs(quick) && !(await stopping(spec, quick)) && (await spec.isReady(quick.port, quick.secret))) return quick;
  await ownerOnlyDir(spec.stateDir);
  return new FileLock(spec.stateDir, `${spec.name}-start`, spec.readyTimeoutMs * 3).run(async () => {
    const rec = await readRecord(spec);
    if (rec && runs(rec)) {
      // Stopping by itself (no root left, or idle): let it finish, it holds its data until it exits; unless it
      // changed its mind (a root registered in time), then it serves on.
      const patience = Date.now() + STOPPING_PATIENCE_MS;
      while (runs(rec) && (await stopping(spec, rec)) && Date.now() < patience) await sleep(100);
      // A busy server (a compaction, a loaded machine) may answer late: it is given time before being called deaf.
      if (runs(rec) && rec.secret && (await spec.isReady(rec.port, rec.secret, DEAF_AFTER_MS))) return rec;
      // Alive but deaf, or started before servers checked a secret (open to every user): replace it.
      if (runs(rec)) await stopPid(rec.pid, rec.secret ? 'SIGKILL' : spec.stopSignal);
    }
    if (rec) await rm(join(spec.stateDir, stoppingMarker(rec.pid)), { force: true });
    return start(spec);
  });
}

/** The servers folder holds the secrets: only its owner may list or open it, whatever the umask. */
async function ownerOnlyDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}

async function start(spec: ServerSpec): Promise<ServerRecord> {
  const port = await freePort();
  const secret = randomBytes(32).toString('hex');
  const log = openSync(logFile(spec), 'a', 0o600);
  // The secret goes in the environment (readable by the owner only), never on the command line (readable by all).
  const child = spawn(spec.command, spec.args(port), {
    detached: true,
    stdio: ['ignore', log, log],
    env: { ...inheritedEnvironment(), PYTHONUNBUFFERED: '1', ...spec.env, [SECRET_ENV]: secret },
  });
  closeSync(log);
  let exitCode: number | null = null;
  let spawnError: Error | null = null;
  child.on('exit', (code) => (exitCode = code ?? -1));
  child.on('error', (err) => (spawnError = err));
  child.unref();
  // Recorded before it is ready: if this process dies while waiting, the next one finds the
  // server (and replaces it if it never answers) instead of leaving an orphan that holds the port or data.
  const procStart = child.pid ? processStartTime(child.pid) : undefined;
  const rec: ServerRecord = { pid: child.pid ?? -1, port, secret, startedAt: new Date().toISOString(), ...(procStart ? { procStart } : {}) };
  if (child.pid) await writeFileAtomic(recordFile(spec), JSON.stringify(rec), { mode: 0o600 });
  const deadline = Date.now() + spec.readyTimeoutMs;
  while (Date.now() < deadline) {
    if (spawnError || exitCode !== null) break;
    if (await spec.isReady(port, secret)) return rec;
    await sleep(100);
  }
  if (child.pid && isAlive(child.pid)) await stopPid(child.pid, 'SIGKILL');
  await rm(recordFile(spec), { force: true });
  const tail = await readFile(logFile(spec), 'utf8')
    .then((t) => t.slice(-1500).trim())
    .catch(() => '');
  const why = spawnError ? String(spawnError) : exitCode !== null ? `exited with ${exitCode}` : `not ready after ${spec.readyTimeoutMs} ms`;
  throw new RuntimeSetupError(`could not start ${spec.name} (${spec.command}): ${why}${tail ? `\n${tail}` : ''}`);
}

/** Signals the process and returns once it is gone (killed if it outlives `waitMs`). */
async function stopPid(pid: number, signal: NodeJS.Signals, waitMs = 15_000): Promise<void> {
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline && isAlive(pid)) await sleep(50);
  if (isAlive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
    const killed = Date.now() + 10_000;
    while (Date.now() < killed && isAlive(pid)) await sleep(50);
  }
}

/** Stops the recorded server and returns once it no longer runs; true if one was running. */
export async function stopServer(spec: Pick<ServerSpec, 'stateDir' | 'name' | 'stopSignal'>): Promise<boolean> {
  const rec = await readRecord(spec);
  if (!rec) return false;
  // A pid that another process took since the server exited is left alone.
  const running = runs(rec);
  if (running) await stopPid(rec.pid, spec.stopSignal);
  await rm(recordFile(spec), { force: true });
  await rm(join(spec.stateDir, stoppingMarker(rec.pid)), { force: true });
  return running;
}
