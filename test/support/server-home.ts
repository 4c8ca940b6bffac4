// A test file that kills, stops or counts the shared local servers gets a server home of its own
// (MEMDIR_SERVER_HOME, inherited by the `mem` it runs), so the run's shared servers, which test files running in
// parallel use, are left alone. Its servers are stopped when the file is done (the global teardown checks again).
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, vi } from 'vitest';

import { SERVER_NAMES } from '../../src/adapters/runtime/local-servers.js';
import { stopServer } from '../../src/adapters/runtime/managed-server.js';
import { serverLayout } from '../../src/memory/layout.js';
import { tempRoot } from './temp-root.js';

export interface ServerRecordOnDisk {
  pid: number;
  port: number;
  secret: string;
}

/** Call at the top of a describe (before its own hooks, so its clean-up runs last); returns the home's path. */
export function ownServerHome(): () => string {
  let home = '';
  beforeAll(async () => {
    home = await tempRoot({}, 'memdir-server-home-');
    vi.stubEnv('MEMDIR_SERVER_HOME', home);
  });
  afterAll(async () => {
    if (home) {
      for (const name of SERVER_NAMES) await stopServer({ stateDir: serverLayout(home).servers, name, stopSignal: 'SIGINT' });
      await rm(home, { recursive: true, force: true });
    }
    vi.unstubAllEnvs();
  });
  return () => home;
}

/** The record of a shared server under a server home (its pid, port and secret). */
export async function serverRecord(home: string, name: (typeof SERVER_NAMES)[number]): Promise<ServerRecordOnDisk> {
  return JSON.parse(await readFile(join(serverLayout(home).servers, `${name}.json`), 'utf8')) as ServerRecordOnDisk;
}
