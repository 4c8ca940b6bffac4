// Starts, finds and stops a detached local server process recorded under `.mem/servers/`, shared by
// every memdir process on the same root (the first one starts it, the others reuse it).
import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import writeFileAtomic from 'write-file-atomic';

import { inheritedEnvironment } from '../../config.js';
import { RuntimeSetupError } from '../../errors.js';
import { FileLock } from '../state/file-lock.js';
import { isAlive } from '../state/process-alive.js';

export { isAlive };

export interface ServerSpec {
  name: string;
  /** Folder for the record, the log and the start lock. */
  stateDir: string;
  command: string;
  args: (port: number) => string[];
  env?: Record<string, string>;
  isReady: (port: number) => Promise<boolean>;
  readyTimeoutMs: number;
  /** The signal that stops the server cleanly. */
  stopSignal: NodeJS.Signals;
}

export interface ServerRecord {
  pid: number;
  port: number;
  startedAt: string;
}


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
  const quick = await readRecord(spec);
  if (quick && isAlive(quick.pid) && (await spec.isReady(quick.port))) return quick;
  await mkdir(spec.stateDir, { recursive: true });
  return new FileLock(spec.stateDir, `${spec.name}-start`, spec.readyTimeoutMs * 3).run(async () => {
    const rec = await readRecord(spec);
    if (rec && isAlive(rec.pid)) {
      if (await spec.isReady(rec.port)) return rec;
      await stopPid(rec.pid, 'SIGKILL'); // Alive but deaf: replace it.
    }
    return start(spec);
  });
}

async function start(spec: ServerSpec): Promise<ServerRecord> {
  const port = await freePort();
  const log = openSync(logFile(spec), 'a');
  const child = spawn(spec.command, spec.args(port), {
    detached: true,
    stdio: ['ignore', log, log],
    env: { ...inheritedEnvironment(), PYTHONUNBUFFERED: '1', ...spec.env },
  });
  closeSync(log);
  let exitCode: number | null = null;
  let spawnError: Error | null = null;
  child.on('exit', (code) => (exitCode = code ?? -1));
  child.on('error', (err) => (spawnError = err));
  child.unref();
  // Recorded before it is ready: if this process dies while waiting, the next one finds the
  // server (and replaces it if it never answers) instead of leaving an orphan that holds the port or data.
  const rec: ServerRecord = { pid: child.pid ?? -1, port, startedAt: new Date().toISOString() };
  if (child.pid) await writeFileAtomic(recordFile(spec), JSON.stringify(rec));
  const deadline = Date.now() + spec.readyTimeoutMs;
  while (Date.now() < deadline) {
    if (spawnError || exitCode !== null) break;
    if (await spec.isReady(port)) return rec;
    await sleep(100);
  }
  if (child.pid && isAlive(child.pid)) await stopPid(child.pid, 'SIGKILL');
  await rm(recordFile(spec), { force: true });
  const tail = await readFile(logFile(spec), 'utf8').then((t) => t.slice(-1500).trim()).catch(() => '');
  const why = spawnError ? String(spawnError) : exitCode !== null ? `exited with ${exitCode}` : `not ready after ${spec.readyTimeoutMs} ms`;
  throw new RuntimeSetupError(`could not start ${spec.name} (${spec.command}): ${why}${tail ? `\n${tail}` : ''}`);
}

async function stopPid(pid: number, signal: NodeJS.Signals, waitMs = 5_000): Promise<void> {
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
  }
}

/** Stops the recorded server; true if one was running. */
export async function stopServer(spec: Pick<ServerSpec, 'stateDir' | 'name' | 'stopSignal'>): Promise<boolean> {
  const rec = await readRecord(spec);
  if (!rec) return false;
  const running = isAlive(rec.pid);
  if (running) await stopPid(rec.pid, spec.stopSignal);
  await rm(recordFile(spec), { force: true });
  return running;
}
