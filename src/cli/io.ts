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

// C0/C1 control characters (ESC starts colour, cursor and title sequences; CR overwrites a line) and bidi
// overrides, shown visibly instead: memory text is data, and must not drive the reader's terminal.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** Text for a terminal: every unsafe character as a visible \u escape (tabs and newlines stay). */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function createIo(opts: GlobalOptions): Io {
  const json = Boolean(opts.json);
  return {
    json,
    debug: Boolean(opts.debug),
    result(data, human) {
      process.stdout.write(json ? `${JSON.stringify(data)}\n` : `${terminalSafe(human())}\n`);
    },
    note(message) {
      process.stderr.write(`${terminalSafe(message)}\n`);
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
