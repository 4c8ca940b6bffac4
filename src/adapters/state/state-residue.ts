// StateResidue over `.mem/`: a marker for deletions not yet purged from index storage, and a byte scan of the folder.
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

import { stateLayoutAt } from '../../memory/layout.js';
import type { StateResidue } from '../../services/ports.js';
import { ensureStateDir } from './state-dir.js';

export class FileStateResidue implements StateResidue {
  private readonly dir: string;
  private readonly marker: string;

  /** `stateDir`: the root's `.mem/` (see stateDirOf). */
  constructor(stateDir: string) {
    const layout = stateLayoutAt(stateDir);
    this.dir = layout.dir;
    this.marker = layout.purgePending;
  }

  async markDeleted(): Promise<void> {
    await ensureStateDir(this.dir);
    // The marker holds nothing but a time: it must not become a copy of what was deleted.
    await writeFile(this.marker, `${new Date().toISOString()}\n`);
  }

  async deletedSinceLastPurge(): Promise<boolean> {
    return existsSync(this.marker);
  }

  async clearDeleted(): Promise<void> {
    await rm(this.marker, { force: true });
  }

  async scan(needles: Uint8Array[]): Promise<{ files: number; hits: string[] }> {
    const entries = await readdir(this.dir, { recursive: true, withFileTypes: true }).catch(() => []);
    const wanted = needles.filter((n) => n.length > 0).map((n) => Buffer.from(n));
    const hits: string[] = [];
    let files = 0;
    for (const e of entries) {
      if (!e.isFile()) continue;
      const file = join(e.parentPath, e.name);
      // A socket, or a file removed while we read (a server rotating its files), holds nothing to find.
      const bytes = await readFile(file).catch(() => null);
      if (!bytes) continue;
      files++;
      if (wanted.some((n) => bytes.includes(n))) hits.push(relative(this.dir, file).split('\\').join('/'));
    }
    return { files, hits };
  }
}
