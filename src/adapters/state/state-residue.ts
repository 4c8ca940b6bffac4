// StateResidue over `.mem/`: a marker for deletions not yet purged from index storage, and a byte scan of the folder
// and of the root's collection in the shared Milvus Lite data.
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

import { stateLayoutAt } from '../../memory/layout.js';
import type { StateResidue } from '../../services/ports.js';
import { ensureStateDir } from './state-dir.js';

export class FileStateResidue implements StateResidue {
  private readonly dir: string;
  private readonly marker: string;

  /**
   * `stateDir`: the root's `.mem/` (see stateDirOf). `sharedIndex`: the shared Milvus Lite's data folder and this
   * root's collection, scanned too, except the folders of other roots' collections (`collections/<name>/`).
   */
  constructor(
    stateDir: string,
    private readonly sharedIndex?: { dir: string; collection: string },
  ) {
    const layout = stateLayoutAt(stateDir);
    this.dir = layout.dir;
    this.marker = layout.purgePending;
  }

  async markDeleted(): Promise<void> {
    await ensureStateDir(this.dir);
    // The marker holds nothing but a time: it must not become a copy of what was deleted.
    await writeFile(this.marker, `${new Date().toISOString()}\n`, { mode: 0o600 });
  }

  async deletedSinceLastPurge(): Promise<boolean> {
    return existsSync(this.marker);
  }

  async clearDeleted(): Promise<void> {
    await rm(this.marker, { force: true });
  }

  async scan(needles: Uint8Array[]): Promise<{ files: number; hits: string[] }> {
    const wanted = needles.filter((n) => n.length > 0).map((n) => Buffer.from(n));
    const own = await scanDir(this.dir, wanted, () => true);
    if (!this.sharedIndex) return own;
    const { dir, collection } = this.sharedIndex;
    const others = join(dir, 'collections');
    const mine = join(others, collection);
    const shared = await scanDir(dir, wanted, (folder) => folder === others || !folder.startsWith(others) || folder === mine || folder.startsWith(`${mine}/`));
    // Hits in the shared data are named by their path there (they are not under `.mem/`).
    return { files: own.files + shared.files, hits: [...own.hits, ...shared.hits.map((h) => join(dir, h))] };
  }
}

/** Files under `dir` (in folders `keep` accepts) that hold one of the needles, relative to `dir`. */
async function scanDir(dir: string, wanted: Buffer[], keep: (folder: string) => boolean): Promise<{ files: number; hits: string[] }> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const hits: string[] = [];
  let files = 0;
  for (const e of entries) {
    if (!e.isFile() || !keep(e.parentPath)) continue;
    const file = join(e.parentPath, e.name);
    // A socket, or a file removed while we read (a server rotating its files), holds nothing to find.
    const bytes = await readFile(file).catch(() => null);
    if (!bytes) continue;
    files++;
    if (wanted.some((n) => bytes.includes(n))) hits.push(relative(dir, file).split('\\').join('/'));
  }
  return { files, hits };
}
