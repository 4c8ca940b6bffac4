// The root's private state folder `.mem/`: created on demand, never committed (it ignores itself). A root
// that cannot be written keeps its state under the runtime home instead, so it can still be searched.
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

import { RootGoneError } from '../../errors.js';
import { STATE_DIR } from '../../memory/layout.js';

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** `<root>/.mem`, or for a read-only root `<runtimeHome>/roots/<hash of the root>` (index, manifest, servers). */
export function stateDirOf(root: string, runtimeHome: string): string {
  const inRoot = join(root, STATE_DIR);
  if (existsSync(inRoot) ? writable(inRoot) : !existsSync(root) || writable(root)) return inRoot;
  return join(runtimeHome, 'roots', createHash('sha256').update(root).digest('hex').slice(0, 16));
}

/** The root a `<root>/.mem` folder (or a folder inside one) belongs to; undefined for state kept under the runtime home. */
function rootOfState(dir: string): string | undefined {
  for (let at = dir; dirname(at) !== at; at = dirname(at)) if (basename(at) === STATE_DIR) return dirname(at);
  return undefined;
}

/**
 * Creates a folder of a root's state, but never the root itself: a root deleted (or moved away) under a process that
 * had it open (the search daemon, `mem mcp`, `mem watch`, a command still running) stays deleted, instead of coming
 * back as a folder holding only `.mem/`, which that process would then go on serving.
 */
export async function makeStateFolder(dir: string): Promise<void> {
  const root = rootOfState(dir);
  if (root !== undefined && !existsSync(root)) {
    throw new RootGoneError(`the memory root ${root} is gone (deleted or moved away): nothing is written there`);
  }
  await mkdir(dir, { recursive: true });
}

/** The root's state folder, made if missing; `createRoot`: a root that does not exist yet is made too (opening a new root). */
export async function ensureStateDir(dir: string, options: { createRoot?: boolean } = {}): Promise<string> {
  const ignore = join(dir, '.gitignore');
  if (existsSync(ignore)) return dir;
  if (options.createRoot) await mkdir(dir, { recursive: true });
  else await makeStateFolder(dir);
  // A .gitignore of "*" inside the folder keeps it out of git wherever the root sits.
  await writeFile(ignore, '*\n');
  return dir;
}
