// Drives `bin/mem hook` the way a coding agent does (input on stdin, or as Codex's last argument) and reads what the
// detached capture logged under the root's `.mem/hooks/`.
import { spawn } from 'node:child_process';

import type { HookLogEntry } from '../../src/services/ports.js';
import { eventually } from './eventually.js';
import { MEM_BIN, cleanEnv } from './harness.js';
import { hookLog } from './hook-log.js';

export { hookLog } from './hook-log.js';

export interface HookRun {
  code: number;
  stdout: string;
  stderr: string;
  /** Wall time of the whole process, Node start-up included. */
  ms: number;
}

/** Runs a hook the way an agent does: the payload on stdin (or as the last argument, like Codex's notify). */
export function hook(args: string[], payload: unknown, env: Record<string, string>, asArgument = false): Promise<HookRun> {
  const started = Date.now();
  const json = JSON.stringify(payload);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MEM_BIN, 'hook', ...args, ...(asArgument ? [json] : [])], { env: cleanEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code, signal) =>
      resolve({ code: code ?? 1, stdout, stderr: signal ? `${stderr}killed by ${signal}` : stderr, ms: Date.now() - started }),
    );
    child.stdin.end(asArgument ? '' : json);
  });
}

/** Waits for the detached capture a hook started to log its outcome (the n-th entry of that event). */
export function captured(root: string, event: string, n: number, ms = 180_000): Promise<HookLogEntry> {
  return eventually(async () => (await hookLog(root)).filter((e) => e.event === event)[n - 1], `capture ${event} #${n} in ${root}`, ms, 250);
}
