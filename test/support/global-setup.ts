// Integration suite set-up: provision the embedded runtime once (so tests don't race to install it),
// give this run its own temporary folder, and at the end stop every local server started under it
// (and only those: other runs and benchmarks on the machine keep theirs).
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { TestProject } from 'vitest/node';

import { stopServer } from '../../src/adapters/runtime/managed-server.js';
import { ensureRuntime } from '../../src/adapters/runtime/python-runtime.js';
import { askDaemon } from '../../src/daemon/client.js';
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
  for (const root of roots) {
    const stateDir = join(root, '.mem', 'servers');
    await askDaemon(loadConfig(process.env, { root }), 'stop', undefined, 2_000);
    for (const server of ['milvus-lite', 'embedder']) await stopServer({ stateDir, name: server, stopSignal: 'SIGINT' }).catch(() => undefined);
  }
  await rm(runDir, { recursive: true, force: true });
}
