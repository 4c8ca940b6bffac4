// The background capture's worker: a detached `mem hook … --foreground` process that captures what a hook
// held, so the agent never waits for the servers or a model. Its input is the held file's path, never the
// turns themselves (a command line is visible to every local account); its output goes to a log file.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const MEM_BIN = fileURLToPath(new URL('../../../bin/mem.js', import.meta.url));

export interface CaptureWorker {
  agent: string;
  event: string;
  user: string;
  /** The owner-only file holding the hook's input. */
  heldFile: string;
  /** Where the worker's stdout and stderr are appended. */
  outputFile: string;
  env: NodeJS.ProcessEnv;
}

/** Starts the worker and returns at once; one that could not start leaves its input held for the next hook's worker. */
export function startCaptureWorker(w: CaptureWorker): void {
  const out = openSync(w.outputFile, 'a');
  const child = spawn(process.execPath, [MEM_BIN, 'hook', w.agent, w.event, '--user', w.user, '--foreground', '--payload-file', w.heldFile], {
    detached: true,
    stdio: ['ignore', out, out],
    env: w.env,
  });
  closeSync(out);
  child.on('error', () => undefined);
  child.unref();
}
