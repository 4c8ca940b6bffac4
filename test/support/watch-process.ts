// A real `mem watch --json` process on a root, for e2e tests: its JSON lines collected as they come, its stderr kept.
import { spawn, type ChildProcess } from 'node:child_process';

import { MEM_BIN, cleanEnv } from './harness.js';

export interface WatchProcess {
  watcher: ChildProcess;
  /** Every JSON line it printed so far, in order. */
  lines: Record<string, unknown>[];
  stderr(): string;
}

export function spawnWatch(root: string, args: string[] = []): WatchProcess {
  const watcher = spawn(process.execPath, [MEM_BIN, '--root', root, 'watch', '--json', ...args], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  let buffer = '';
  let stderr = '';
  watcher.stdout!.on('data', (chunk) => {
    buffer += chunk.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>);
      buffer = buffer.slice(nl + 1);
    }
  });
  watcher.stderr!.on('data', (chunk) => (stderr += chunk.toString()));
  return { watcher, lines, stderr: () => stderr };
}
