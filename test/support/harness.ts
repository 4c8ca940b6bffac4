// Opens real memdir instances (Milvus Lite + local model) and runs the real `bin/mem` in temporary roots.
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

import { loadConfig, type MemConfig } from '../../src/config.js';
import { openMemory } from '../../src/open-memory.js';
import { stopLocalServers } from '../../src/server-control.js';
import type { MemoryDeps } from '../../src/services/core/deps.js';
import type { Memory } from '../../src/services/facade.js';
import { tempRoot } from './temp-root.js';

export const MEM_BIN = fileURLToPath(new URL('../../bin/mem.js', import.meta.url));

/**
 * The environment of a test run: nothing that would point memdir elsewhere than its embedded
 * default, and no search daemon (a daemon still starting when a test stops the servers would start
 * them again; the daemon has its own test, which opts in with MEM_DAEMON=on).
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('MEM_') || key.startsWith('MILVUS_')) delete env[key];
  return { ...env, MEM_DAEMON: 'off', ...extra };
}

export interface TestMemory {
  root: string;
  config: MemConfig;
  memory: Memory;
  /** Its wired dependencies: a search with the ranking tuned (searchMemories' third argument) goes through them. */
  deps: MemoryDeps;
  /** Closes the client, stops the root's servers and removes the root. */
  cleanup(): Promise<void>;
}

export async function openTestMemory(files: Record<string, string | Uint8Array> = {}, env: Record<string, string> = {}): Promise<TestMemory> {
  const root = await tempRoot(files, 'memdir-it-');
  const config = loadConfig(cleanEnv(env), { root });
  let deps: MemoryDeps | undefined;
  const memory = await openMemory(config, { onDeps: (d) => (deps = d) });
  return {
    root,
    config,
    memory,
    deps: deps!,
    async cleanup() {
      await memory.close();
      await stopLocalServers(config);
      await rm(root, { recursive: true, force: true });
    },
  };
}

export interface MemRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (when --json was given and it parsed). */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Runs `bin/mem` as a new process, as a user would. */
export function runMem(args: string[], options: { root?: string; env?: Record<string, string> } = {}): Promise<MemRun> {
  const fullArgs = [MEM_BIN, ...(options.root ? ['--root', options.root] : []), ...args];
  return new Promise((resolve) => {
    execFile(process.execPath, fullArgs, { env: cleanEnv(options.env), maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      let json: unknown = undefined;
      try {
        json = JSON.parse(stdout);
      } catch {
        /* not JSON */
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}
