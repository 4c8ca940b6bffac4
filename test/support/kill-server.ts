// Runs `mem` with the step counter of kill-at.mjs preloaded, killing one of the shared managed servers at a chosen step.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadConfig } from '../../src/config.js';
import { serverLayout } from '../../src/memory/layout.js';
import { MEM_BIN, cleanEnv, type MemRun } from './harness.js';

const KILL_HOOK = fileURLToPath(new URL('./kill-at.mjs', import.meta.url));

/**
 * Runs `mem <args> --json`; at step `killAt` (or the first call of that Milvus method, or of "fetch <url part>")
 * the root's `server` (milvus-lite or embedder) is killed with SIGKILL; with `restart`, started again at once.
 */
export function memKillingServer(
  root: string,
  server: 'milvus-lite' | 'embedder',
  args: string[],
  killAt: number | string,
  stepsFile?: string,
  restart = false,
): Promise<MemRun> {
  const env = cleanEnv({
    ...(typeof killAt === 'number' ? { MEMDIR_KILL_AT: String(killAt) } : { MEMDIR_KILL_ON: killAt }),
    // The shared server the root uses (a test that kills one has a server home of its own: server-home.ts).
    MEMDIR_KILL_PID_FILE: join(serverLayout(loadConfig(cleanEnv(), { root }).serverHome).servers, `${server}.json`),
    ...(stepsFile ? { MEMDIR_STEPS_FILE: stepsFile } : {}),
    ...(restart ? { MEMDIR_RESTART_ROOT: root } : {}),
  });
  const child = spawn(process.execPath, ['--import', KILL_HOOK, MEM_BIN, '--root', root, ...args, '--json'], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) =>
    child.once('close', (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code: code ?? -1, stdout, stderr, json });
    }),
  );
}
