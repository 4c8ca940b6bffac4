// Hook inputs waiting for the background capture, under `.mem/hooks/inbox/`: owner-only files (the folder 0700,
// each file 0600), so a prompt and its reply never sit on a command line that every local account can read in
// `ps`, have no size limit there, and outlive a capture that failed until the next hook retries them.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

import writeFileAtomic from 'write-file-atomic';

export class CaptureInbox {
  constructor(private readonly dir: string) {}

  async hold(text: string): Promise<string> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700); // a folder made before, with the umask's mode
    const file = join(this.dir, `${Date.now()}-${randomBytes(6).toString('hex')}.json`);
    await writeFileAtomic(file, text, { mode: 0o600 });
    return file;
  }

  async held(olderThanMs: number): Promise<string[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const now = Date.now();
    const found: { file: string; mtime: number }[] = [];
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      const file = join(this.dir, name);
      const s = await stat(file).catch(() => null);
      if (s && now - s.mtimeMs >= olderThanMs) found.push({ file, mtime: s.mtimeMs });
    }
    return found.sort((a, b) => a.mtime - b.mtime).map((f) => f.file);
  }

  async release(path: string): Promise<void> {
    await rm(path, { force: true });
  }
}
