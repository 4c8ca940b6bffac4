// TextFiles on the local file system: agents' configuration files and transcripts, by absolute path.
import { mkdir, readFile, rmdir, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

import writeFileAtomic from 'write-file-atomic';

import type { TextFiles } from '../../services/ports.js';

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

export class FsTextFiles implements TextFiles {
  async read(path: string): Promise<string | null> {
    try {
      return await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async write(path: string, text: string): Promise<string[]> {
    const created: string[] = [];
    for (let dir = dirname(path); !(await exists(dir)); dir = dirname(dir)) created.unshift(dir);
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
