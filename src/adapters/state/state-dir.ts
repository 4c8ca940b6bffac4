// The root's private state folder `.mem/`: created on demand, owner-only (it holds the memories' text, vectors
// and the agents' hook log), never committed (it ignores itself). A root that cannot be written keeps its state
// under the runtime home instead, so it can still be searched.
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync } from 'node:fs';
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

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

// Folders already made owner-only by this process: checked once each, not at every write.
const privateDirs = new Set<string>();

/**
 * Makes `dir` owner-only: created 0700, or tightened when it exists with access for others (a folder made by an
 * earlier memdir, or by a tool with a wide umask). Only the folder's own mode changes, never a file's content.
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  if (privateDirs.has(dir)) return;
  // The folders above keep the usual modes: a project's memories/ folder is the repository's to set.
  await mkdir(dirname(dir), { recursive: true });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const { mode, uid } = await stat(dir);
  // Someone else's folder (a shared root) is theirs to set; it is only tightened when it is ours.
  if (mode & 0o077 && uid === process.getuid?.()) await chmod(dir, mode & 0o700);
  privateDirs.add(dir);
}

/** LMDB creates its files with the umask's mode (0664 at best): set them to owner-only once open. */
export async function ownerOnlyFiles(...paths: string[]): Promise<void> {
  for (const path of paths) await chmod(path, 0o600).catch(() => undefined); // not there (no lock file yet)
}

export async function ensureStateDir(dir: string): Promise<string> {
  const ignore = join(dir, '.gitignore');
  // A folder deleted since this process checked it is made again, owner-only.
  if (!existsSync(ignore)) privateDirs.delete(dir);
  await ensurePrivateDir(dir);
  if (existsSync(ignore)) return dir;
  // A .gitignore of "*" inside the folder keeps it out of git wherever the root sits.
  await writeFile(ignore, '*\n', { mode: 0o600 });
  return dir;
}
