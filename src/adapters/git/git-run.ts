// Runs one git command in a folder and hands back its exit code and output, whatever the code: a merge that stops
// on conflicts or an ancestry test answers by its exit code, which a library that throws on any non-zero code hides.
import { execFile } from 'node:child_process';

import { inheritedEnvironment } from '../../config.js';

export interface GitOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Identity for commits where none is configured (CI, fresh machines), without touching global config. */
export const FALLBACK_IDENTITY = ['-c', 'user.name=memdir', '-c', 'user.email=memdir@localhost'];

export function gitRun(cwd: string, args: string[], options: { timeoutMs?: number } = {}): Promise<GitOutcome> {
  const full = args;
  return new Promise((resolve) => {
    execFile(
      'git',
      full,
      // No prompt for credentials or an editor: `mem sync` runs unattended, and a question nobody answers is a hang.
      {
        cwd,
        encoding: 'utf8',
        maxBuffer: 1 << 28,
        timeout: options.timeoutMs ?? 0,
        env: { ...inheritedEnvironment(), GIT_TERMINAL_PROMPT: '0', GIT_EDITOR: 'true', GIT_MERGE_AUTOEDIT: 'no', LC_ALL: 'C' },
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 128) : 0;
        resolve({ code, stdout, stderr: err && !stderr ? err.message : stderr });
      },
    );
  });
}
