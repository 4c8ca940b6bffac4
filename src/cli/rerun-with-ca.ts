// Runs this very command again in a child Node that starts with the host's extra CA bundle, for a process the bin/mem
// launcher started without it (a fast path it expected did not answer), and hands back the child's exit code.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MEM_BIN = fileURLToPath(new URL('../../bin/mem.js', import.meta.url));

const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * `node bin/mem.js <args>` in a child with this environment and this terminal: its exit code, or, killed by a signal,
 * this process dies of the same signal. Only the slow path comes here (the full CLI: seconds of opening a root), so
 * a second Node start (tens of ms) does not matter. A signal sent to this process is passed on; Ctrl-C reaches both
 * already (one process group), and the commands that come here (a search, a hook, or another command the launcher took
 * for one) have no handler of their own that a second SIGINT would cut short.
 */
export function rerunWithCa(args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...process.execArgv, MEM_BIN, ...args], { stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
    const handlers = FORWARDED.map((signal) => [signal, forward(signal)] as const);
    for (const [signal, handler] of handlers) process.on(signal, handler);
    child.on('error', (err) => {
      process.stderr.write(`mem: could not start ${process.execPath}: ${err.message}\n`);
      resolve(1);
    });
    child.on('exit', (code, signal) => {
      for (const [s, handler] of handlers) process.off(s, handler);
      if (signal) process.kill(process.pid, signal);
      else resolve(code ?? 1);
    });
  });
}
