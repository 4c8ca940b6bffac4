// The root's private state folder `.mem/`: created on demand, owner-only (it holds the memories' text, vectors
// and the agents' hook log), never committed (it ignores itself). A root that cannot be written keeps its state
// under the runtime home instead, so it can still be searched.
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync } from 'node:fs';
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
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

/** The root a `<root>/.mem` folder (or a folder inside one) belongs to; undefined for state kept under the runtime home. */
function rootOfState(dir: string): string | undefined {
  for (let at = dir; dirname(at) !== at; at = dirname(at)) if (basename(at) === STATE_DIR) return dirname(at);
  return undefined;
}

/**
 * A root deleted (or moved away) under a process that had it open (the search daemon, `mem mcp`, `mem watch`, a
 * command still running) stays deleted, instead of coming back as a folder holding only `.mem/`, which that process
 * would then go on serving: no state is written into it.
 */
function assertRootPresent(dir: string): void {
  const root = rootOfState(dir);
  if (root !== undefined && !existsSync(root)) {
    throw new RootGoneError(`the memory root ${root} is gone (deleted or moved away): nothing is written there`);
  }
}

/** Creates a folder of a root's state (owner-only), but never the root itself. */
export async function makeStateFolder(dir: string): Promise<void> {
  assertRootPresent(dir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
}

/** The root's state folder, made if missing (owner-only); `createRoot`: a root that does not exist yet is made too (opening a new root). */
export async function ensureStateDir(dir: string, options: { createRoot?: boolean } = {}): Promise<string> {
  if (!options.createRoot) assertRootPresent(dir);
  const ignore = join(dir, '.gitignore');
  // A folder deleted since this process checked it is made again, owner-only.
  if (!existsSync(ignore)) privateDirs.delete(dir);
  await ensurePrivateDir(dir);
  if (existsSync(ignore)) return dir;
  // A .gitignore of "*" inside the folder keeps it out of git wherever the root sits.
  await writeFile(ignore, '*\n', { mode: 0o600 });
  return dir;
}
