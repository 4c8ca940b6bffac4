// TextFiles on the local file system: agents' configuration files and transcripts, by absolute path.
import { chmod, mkdir, readFile, rmdir, rm, stat } from 'node:fs/promises';
import { dirname, relative, sep } from 'node:path';

import writeFileAtomic from 'write-file-atomic';

import { UsageError } from '../../errors.js';
import type { TextFiles } from '../../services/ports.js';

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** `top` and every folder below it down to `dir`, outermost first. */
function foldersFrom(top: string, dir: string): string[] {
  const rel = relative(top, dir);
  if (rel.startsWith('..')) throw new Error(`${dir} is not inside ${top}`);
  const out = [top];
  for (const part of rel ? rel.split(sep) : []) out.push(`${out[out.length - 1]}${sep}${part}`);
  return out;
}

export class FsTextFiles implements TextFiles {
  async read(path: string): Promise<string | null> {
    try {
      return await readFile(path, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return null;
      // The person's layout is in the way: theirs to fix, not a fault of memdir's.
      if (code === 'EISDIR') throw new UsageError(`${path} is a folder where a file is expected; move it away, then run again (nothing was changed)`);
      if (code === 'ENOTDIR') throw new UsageError(`a file is in the way of ${path} (one of its folders is a file); nothing was changed`);
      throw err;
    }
  }

  async write(path: string, text: string, options: { ownerOnly?: string } = {}): Promise<string[]> {
    const created: string[] = [];
    for (let dir = dirname(path); !(await exists(dir)); dir = dirname(dir)) created.unshift(dir);
    if (options.ownerOnly) {
      // Folders above the private one keep the usual modes (a project's memories/ is the repository's).
      await mkdir(dirname(options.ownerOnly), { recursive: true });
      for (const dir of foldersFrom(options.ownerOnly, dirname(path))) {
        await mkdir(dir, { recursive: true, mode: 0o700 });
        // A folder made before (by an older memdir, or by hand) is tightened too.
        await chmod(dir, 0o700);
      }
      await writeFileAtomic(path, text, { mode: 0o600 });
      return created;
    }
    await mkdir(dirname(path), { recursive: true });
    // Keep the mode of a file that exists (settings may be private); new files get the umask's.
    await writeFileAtomic(path, text);
    return created;
  }

  async remove(path: string): Promise<void> {
    await rm(path, { force: true });
  }

  async removeEmptyDirs(dirs: string[]): Promise<void> {
    for (const dir of [...dirs].sort((a, b) => b.length - a.length)) {
      await rmdir(dir).catch(() => undefined); // not empty (someone else's files), or already gone
    }
  }
}
