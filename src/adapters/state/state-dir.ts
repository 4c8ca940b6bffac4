// The root's private state folder `.mem/`: created on demand, never committed (it ignores itself). A root
// that cannot be written keeps its state under the runtime home instead, so it can still be searched.
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

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

export async function ensureStateDir(dir: string): Promise<string> {
  const ignore = join(dir, '.gitignore');
  if (existsSync(ignore)) return dir;
  await mkdir(dir, { recursive: true });
  // A .gitignore of "*" inside the folder keeps it out of git wherever the root sits.
  await writeFile(ignore, '*\n');
  return dir;
}
