// The root's private state folder `.mem/`: created on demand, owner-only (it holds the memories' text, vectors
// and the agents' hook log), never committed (it ignores itself). A root that cannot be written keeps its state
// under the runtime home instead, so it can still be searched.
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';

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

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';
/** The error of a write into a root that is gone. */
export const rootGone = (root: string) => new RootGoneError(`the memory root ${root} is gone (deleted or moved away): nothing is written there`);
/** A missing folder is the root gone only when the root is; a folder between that went (a pull, a clean) is its own error. */
export const goneIfMissing = (root: string, err: unknown) => (isMissing(err) && !existsSync(root) ? rootGone(root) : err);

// Folders already made owner-only by this process: checked once each, not at every write.
const privateDirs = new Set<string>();

/** Tightens a folder that exists with access for others (made by an earlier memdir, or a tool with a wide umask). */
async function tighten(dir: string): Promise<void> {
  const { mode, uid } = await stat(dir);
  // Someone else's folder (a shared root) is theirs to set; it is only tightened when it is ours.
  if (mode & 0o077 && uid === process.getuid?.()) await chmod(dir, mode & 0o700);
  privateDirs.add(dir);
}

/**
 * Makes `dir` owner-only: created 0700, or tightened when it exists with access for others. Only the folder's own
 * mode changes, never a file's content. Used for a folder that may be made anew (a personal root at its opening).
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  if (privateDirs.has(dir)) return;
  // The folders above keep the usual modes: a project's memories/ folder is the repository's to set.
  await mkdir(dirname(dir), { recursive: true });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await tighten(dir);
}

/** Tightens an existing root to owner-only without ever making it: a root gone fails with RootGoneError. */
export async function tightenExistingDir(dir: string): Promise<void> {
  if (privateDirs.has(dir)) return;
  await tighten(dir).catch((err: unknown) => {
    throw goneIfMissing(dir, err);
  });
}

/** The folders from just below `root` down to `dir`, outermost first (none for the root itself). */
function foldersBelow(root: string, dir: string): string[] {
  const rel = relative(root, dir);
  if (rel === '') return [];
  if (rel.startsWith('..') || isAbsolute(rel)) throw new Error(`${dir} is not inside ${root}`);
  const folders: string[] = [];
  for (let at = root, parts = rel.split(sep); parts.length > 0;) folders.push((at = join(at, parts.shift()!)));
  return folders;
}

/**
 * Makes `dir` and the folders between it and `root`, one level at a time and never `root` itself: a root deleted
 * under a long-lived process (even between a check and this call) fails with RootGoneError instead of coming back as
 * a folder holding only memdir's state, which a recursive mkdir would make. Made folders get `mode`.
 */
export async function makeBelow(root: string, dir: string, mode?: number): Promise<void> {
  for (const folder of foldersBelow(root, dir)) {
    await mkdir(folder, { mode }).catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
      throw goneIfMissing(root, err);
    });
  }
}

/** makeBelow, synchronously: for a library that makes a missing folder itself (recursively) right after. */
export function makeBelowSync(root: string, dir: string, mode?: number): void {
  for (const folder of foldersBelow(root, dir)) {
    try {
      mkdirSync(folder, { mode });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw goneIfMissing(root, err);
    }
  }
}

/** The root a `<root>/.mem` folder (or a folder inside one) belongs to; undefined for state kept under the runtime home. */
export function rootOfState(dir: string): string | undefined {
  for (let at = dir; dirname(at) !== at; at = dirname(at)) if (basename(at) === STATE_DIR) return dirname(at);
  return undefined;
}

/**
 * Creates a folder of a root's state (owner-only), but never the root itself: a root deleted (or moved away) under a
 * process that had it open (the search daemon, `mem mcp`, `mem watch`, a command still running) stays deleted,
 * instead of coming back as a folder holding only `.mem/`, which that process would then go on serving.
 */
export async function makeStateFolder(dir: string): Promise<void> {
  const root = rootOfState(dir);
  if (root === undefined) await mkdir(dir, { recursive: true, mode: 0o700 });
  else await makeBelow(root, dir, 0o700);
}

/** makeStateFolder, synchronously: just before opening LMDB, which makes its folder recursively when it is missing. */
export function makeStateFolderSync(dir: string): void {
  const root = rootOfState(dir);
  if (root === undefined) mkdirSync(dir, { recursive: true, mode: 0o700 });
  else makeBelowSync(root, dir, 0o700);
}

/** The root's state folder, made if missing (owner-only); `createRoot`: a root that does not exist yet is made too (opening a new root). */
export async function ensureStateDir(dir: string, options: { createRoot?: boolean } = {}): Promise<string> {
  const ignore = join(dir, '.gitignore');
  // A folder deleted since this process checked it is made again, owner-only.
  if (!existsSync(ignore)) privateDirs.delete(dir);
  if (!privateDirs.has(dir)) {
    const root = rootOfState(dir);
    if (root !== undefined && options.createRoot) await mkdir(root, { recursive: true });
    await makeStateFolder(dir);
    await tighten(dir).catch((err: unknown) => {
      throw root === undefined ? err : goneIfMissing(root, err);
    });
  }
  if (existsSync(ignore)) return dir;
  // A .gitignore of "*" inside the folder keeps it out of git wherever the root sits.
  await writeFile(ignore, '*\n', { mode: 0o600 });
  return dir;
}

/** LMDB creates its files with the umask's mode (0664 at best): set them to owner-only once open. */
export async function ownerOnlyFiles(...paths: string[]): Promise<void> {
  for (const path of paths) await chmod(path, 0o600).catch(() => undefined); // not there (no lock file yet)
}
