// MemoryFiles on the local file system: scans *.md under the root, reads, writes atomically, removes.
import { lstatSync, readFileSync, statSync } from 'node:fs';
import { lstat, readdir, realpath, rm, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

import writeFileAtomic from 'write-file-atomic';

import { UsageError } from '../../errors.js';
import { SKIPPED_DIRS, isMemoryFileName } from '../../memory/layout.js';
import type { FileStat, MemoryFiles } from '../../services/ports.js';
import { goneIfMissing, makeBelow } from '../state/state-dir.js';

function toPosix(p: string): string {
  return sep === '/' ? p : p.split(sep).join('/');
}

function symlinkProblem(target: string | NodeJS.ErrnoException): string {
  if (typeof target === 'string') return 'symbolic link to a file outside the memory root';
  return target.code === 'ELOOP' ? 'symbolic link loop' : `broken symbolic link (${target.code ?? target.message})`;
}

/** Whether a path under the root (relative, '/'-separated) is one the scan indexes by itself. */
function scannedPath(rel: string): boolean {
  const parts = rel.split('/');
  return isMemoryFileName(parts.at(-1)!) && !parts.some((part) => SKIPPED_DIRS.has(part));
}

/**
 * Why a symlinked `.md` file is not indexed, or null when it is. It counts only when it resolves to a file inside
 * the root that the scan would not index by itself: a link to another memory file would index one memory twice
 * (a duplicate id of its target on every sync), and its target can change under the index.
 */
async function symlinkVerdict(abs: string, realRoot: string): Promise<string | null> {
  const target = await realpath(abs).catch((err: NodeJS.ErrnoException) => err);
  if (typeof target !== 'string' || !target.startsWith(realRoot + sep)) return `${symlinkProblem(target)}: skipped`;
  const rel = toPosix(relative(realRoot, target));
  if (scannedPath(rel)) return `symbolic link to ${rel}, a memory file indexed under its own path: skipped (one memory, one file)`;
  return null;
}

export class FsMemoryFiles implements MemoryFiles {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** Absolute path of a relative memory path; refuses anything that would leave the root. */
  resolveInside(path: string): string {
    if (isAbsolute(path) || path.split(/[\\/]/).includes('..')) {
      throw new UsageError(`path ${JSON.stringify(path)} is outside the memory root`);
    }
    const abs = resolve(this.root, path);
    const rel = relative(this.root, abs);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
      throw new UsageError(`path ${JSON.stringify(path)} is outside the memory root`);
    }
    return abs;
  }

  async scan(options: { folders?: string[] } = {}): Promise<{ files: FileStat[]; problems: { path: string; message: string }[] }> {
    const files: FileStat[] = [];
    const problems: { path: string; message: string }[] = [];
    let realRoot: string;
    try {
      realRoot = await realpath(this.root);
    } catch {
      return { files, problems }; // No root yet: nothing to index.
    }
    // Paths are built as the walk descends (`relDir` is the folder's path from the root, '/'-separated): at 50,000
    // files, path.resolve/relative per file cost about as much as the stats themselves, and path.join (which
    // normalises) ~50 ms. `dir` is the resolved root or a folder name added to it: already normal.
    const below = (dir: string, name: string) => (dir.endsWith(sep) ? `${dir}${name}` : `${dir}${sep}${name}`);
    const walk = async (dir: string, relDir: string, top = false): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (err) {
        problems.push({ path: toPosix(relative(this.root, dir)) || '.', message: `cannot read folder: ${(err as Error).message}` });
        return;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : 1));
      for (const entry of entries) {
        const abs = below(dir, entry.name);
        const rel = relDir === '' ? entry.name : `${relDir}/${entry.name}`;
        if (entry.isDirectory()) {
          if (top && options.folders && !options.folders.includes(entry.name)) continue;
          if (!SKIPPED_DIRS.has(entry.name)) await walk(abs, rel);
        } else if (isMemoryFileName(entry.name)) {
          if (entry.isSymbolicLink()) {
            // Symlinked folders are never followed (no loops, no escape); a symlinked file, see symlinkVerdict.
            const skipped = await symlinkVerdict(abs, realRoot);
            if (skipped) {
              problems.push({ path: rel, message: skipped });
              continue;
            }
          } else if (!entry.isFile()) continue;
          // Found by walking the root's own folders (symlinked ones are never entered): inside it by construction.
          const st = statNow(abs, rel);
          if (st) files.push(st);
        }
      }
    };
    await walk(this.root, '', true);
    return { files, problems };
  }

  async stat(path: string): Promise<FileStat | null> {
    try {
      const abs = this.resolveInside(path);
      // Not through the thread pool, as statNow: a search stats the few files it shows, and on a busy machine each
      // round trip through the pool cost more than the stat itself.
      const link = lstatSync(abs, { throwIfNoEntry: false });
      if (!link) return null;
      // A symlink the scan skips is no file here either (a sync of named paths, as mem watch runs, would index it).
      if (link.isSymbolicLink() && (await symlinkVerdict(abs, await realpath(this.root)))) return null;
      const st = link.isSymbolicLink() ? await stat(abs) : link;
      if (!st.isFile()) return null;
      return { path, size: st.size, mtimeMs: Math.floor(st.mtimeMs) };
    } catch (err) {
      if (err instanceof UsageError) throw err;
      return null;
    }
  }

  async rootExists(): Promise<boolean> {
    return stat(this.root).then(
      (st) => st.isDirectory(),
      () => false,
    );
  }

  async skipReason(path: string): Promise<string | null> {
    try {
      const abs = this.resolveInside(path);
      if (!(await lstat(abs)).isSymbolicLink()) return null;
      return await symlinkVerdict(abs, await realpath(this.root));
    } catch {
      return null; // gone, or outside the root: no file the scan would have seen
    }
  }

  async read(path: string): Promise<Uint8Array> {
    // At once, not through the thread pool: a memory file is small (a few KB as a rule, maxFileBytes at most), and the
    // pool's open, stat, read and close, each a round trip, took a search's handful of reads 5 ms (p90 45 ms) on a
    // loaded 2-core machine against 2 ms (7 ms) read here.
    return readFileSync(this.resolveInside(path));
  }

  async write(path: string, text: string): Promise<void> {
    const abs = this.resolveInside(path);
    // Folders below the root only: a root deleted under a long-lived process (`mem mcp`) is not made again by a write.
    await makeBelow(this.root, dirname(abs));
    await writeFileAtomic(abs, text, { encoding: 'utf8' }).catch((err: unknown) => {
      throw goneIfMissing(this.root, err);
    });
  }

  async remove(path: string): Promise<void> {
    await rm(this.resolveInside(path), { force: true });
  }
}

/**
 * stat() without the round trip through the thread pool: a scan stats every file, and 50,000 awaited
 * stats took seconds (a few microseconds each here, blocking only while the scan runs anyway).
 */
function statNow(abs: string, path: string): FileStat | null {
  try {
    // No exception for a file removed since the folder was read: throwing one costs more than the stat.
    const link = lstatSync(abs, { throwIfNoEntry: false });
    if (!link) return null;
    const st = link.isSymbolicLink() ? statSync(abs) : link;
    if (!st.isFile()) return null;
    return { path, size: st.size, mtimeMs: Math.floor(st.mtimeMs) };
  } catch {
    return null;
  }
}
