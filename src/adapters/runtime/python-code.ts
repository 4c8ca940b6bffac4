// Where memdir's own Python code lives (python/memdir_runtime, shipped beside dist/) and how a runtime runs a module of
// it: by module name with that folder alone on PYTHONPATH, so no code reaches the servers' command lines.
import { fileURLToPath } from 'node:url';

/** The folder that holds the memdir_runtime package (the same relative place from src/ and from dist/). */
export const PYTHON_CODE_DIR = fileURLToPath(new URL('../../../python', import.meta.url));

/** The interpreter arguments that run memdir_runtime.<module> with `args`. */
export function pythonModuleArgs(module: string, args: string[]): string[] {
  return ['-m', `memdir_runtime.${module}`, ...args];
}

/** The environment that lets the interpreter find memdir_runtime (and nothing a user's PYTHONPATH names). */
export function pythonCodeEnv(): Record<string, string> {
  // No bytecode written beside the code: it may sit in a read-only global install, and would ship in a package.
  return { PYTHONPATH: PYTHON_CODE_DIR, PYTHONDONTWRITEBYTECODE: '1' };
}
