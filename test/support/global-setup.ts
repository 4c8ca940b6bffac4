// Integration suite set-up: provision the embedded runtime once (so tests don't race to install it),
// give this run its own temporary folder and its own home for the shared local servers (MEMDIR_SERVER_HOME,
// inherited by the test workers and the `mem` they run), and at the end stop every server started under it
// (and only those: other runs, benchmarks and the user's own servers on the machine keep theirs).
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { TestProject } from 'vitest/node';

import { SERVER_NAMES } from '../../src/adapters/runtime/local-servers.js';
import { stopServer } from '../../src/adapters/runtime/managed-server.js';
import { serverLayout } from '../../src/memory/layout.js';
import { ensureRuntime } from '../../src/adapters/runtime/python-runtime.js';
import { runningDaemons, stopDaemonAt } from '../../src/adapters/daemon/client.js';
import { isAlive } from '../../src/adapters/state/process-alive.js';
import { loadConfig } from '../../src/config.js';

declare module 'vitest' {
  export interface ProvidedContext {
    runTmpDir: string;
  }
}

let runDir = '';

export async function setup(project: TestProject): Promise<void> {
  const config = loadConfig(process.env, { root: tmpdir() });
  await ensureRuntime({ home: config.runtimeHome, python: config.python, onLog: (l) => console.log(l) });
  runDir = await mkdtemp(join(tmpdir(), 'memdir-run-'));
  // Workers start after the global set-up and inherit this environment.
  process.env.MEMDIR_SERVER_HOME = join(runDir, 'server-home');
  project.provide('runTmpDir', runDir);
}

export async function teardown(): Promise<void> {
  if (!runDir) return;
  // Roots sit directly in the run folder, or one level down (a memories/ folder inside a project).
  const roots: string[] = [];
  for (const name of await readdir(runDir).catch(() => [])) {
    roots.push(join(runDir, name));
    for (const inner of await readdir(join(runDir, name)).catch(() => [])) roots.push(join(runDir, name, inner));
  }
  // The run's shared servers, then any server a test started under a home of its own inside the run folder; each
  // home's search daemons first (found by the home they answer for, whatever settings started them).
  const homes = [join(runDir, 'server-home'), ...roots];
  for (const daemon of await runningDaemons(loadConfig(process.env, { root: runDir }))) {
    if (!homes.includes(daemon.serverHome)) continue;
    const pid = await stopDaemonAt(daemon.socket, 2_000);
    for (let i = 0; pid && i < 200 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  }
  for (const home of homes) {
    for (const name of SERVER_NAMES) await stopServer({ stateDir: serverLayout(home).servers, name, stopSignal: 'SIGINT' }).catch(() => undefined);
  }
  await rm(runDir, { recursive: true, force: true });
}
