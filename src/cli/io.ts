// Terminal output for the CLI: JSON or human text on stdout, messages on stderr, a progress bar on a TTY.
import type { Progress } from '../services/ports.js';

export interface GlobalOptions {
  root?: string;
  json?: boolean;
  debug?: boolean;
}

export interface Io {
  json: boolean;
  debug: boolean;
  /** The command's result: JSON when --json, else the human text. */
  result(data: unknown, human: () => string): void;
  /** A message for the person (stderr), never mixed into the result. */
  note(message: string): void;
  progress(): Promise<Progress>;
}

export function createIo(opts: GlobalOptions): Io {
  const json = Boolean(opts.json);
  return {
    json,
    debug: Boolean(opts.debug),
    result(data, human) {
      process.stdout.write(json ? `${JSON.stringify(data)}\n` : `${human()}\n`);
    },
    note(message) {
      process.stderr.write(`${message}\n`);
    },
    async progress() {
      if (json || !process.stderr.isTTY) return { start() {}, tick() {}, stop() {} };
      const { default: cliProgress } = await import('cli-progress');
      const bar = new cliProgress.SingleBar(
        { stream: process.stderr, format: '{label} [{bar}] {value}/{total} files', hideCursor: true, clearOnComplete: true },
        cliProgress.Presets.shades_classic,
      );
      return {
        start: (total, label) => bar.start(total, 0, { label }),
        tick: (n = 1) => bar.increment(n),
        stop: () => bar.stop(),
      };
    },
  };
}
