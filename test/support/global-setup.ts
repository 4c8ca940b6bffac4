// Integration suite set-up: provision the embedded runtime once (so tests don't race to install it),
// and at the end stop any local server a test left running under a temporary root.
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ensureRuntime } from '../../src/adapters/runtime/python-runtime.js';
import { stopServer } from '../../src/adapters/runtime/managed-server.js';
import { loadConfig } from '../../src/config.js';

export async function setup(): Promise<void> {
  const config = loadConfig(process.env, { root: tmpdir() });
  await ensureRuntime({ home: config.runtimeHome, python: config.python, onLog: (l) => console.log(l) });
}

export async function teardown(): Promise<void> {
  const entries = await readdir(tmpdir()).catch(() => []);
  for (const name of entries.filter((n) => n.startsWith('memdir-'))) {
    const stateDir = join(tmpdir(), name, '.mem', 'servers');
    for (const server of ['milvus-lite', 'embedder']) await stopServer({ stateDir, name: server, stopSignal: 'SIGINT' }).catch(() => undefined);
  }
}
