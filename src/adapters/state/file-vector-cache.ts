// VectorCache as one small float32 file per text hash under `.mem/vectors/<model>/`.
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import writeFileAtomic from 'write-file-atomic';

import type { VectorCache } from '../../services/ports.js';
import { stateLayoutAt } from '../../memory/layout.js';

const PARALLEL = 64;

async function inParallel<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += PARALLEL) await Promise.all(items.slice(i, i + PARALLEL).map(fn));
}

export class FileVectorCache implements VectorCache {
  private readonly dir: string;

  /** `stateDir`: the root's `.mem/` (see stateDirOf). */
  constructor(stateDir: string, modelKey: string) {
    this.dir = stateLayoutAt(stateDir).vectors(modelKey);
  }

  private fileOf(hash: string): string {
    return join(this.dir, hash.slice(0, 2), `${hash}.f32`);
  }

  async getMany(hashes: string[]): Promise<Map<string, number[]>> {
    const found = new Map<string, number[]>();
    await inParallel(hashes, async (hash) => {
      try {
        const buf = await readFile(this.fileOf(hash));
        const floats = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
        found.set(hash, Array.from(floats));
      } catch {
        // Not cached (or unreadable): it is embedded again.
      }
    });
    return found;
  }

  async putMany(entries: Map<string, number[]>): Promise<void> {
    await inParallel([...entries], async ([hash, vector]) => {
      const file = this.fileOf(hash);
      await mkdir(join(file, '..'), { recursive: true });
      await writeFileAtomic(file, Buffer.from(new Float32Array(vector).buffer));
    });
  }

  async removeMany(hashes: string[]): Promise<void> {
    await inParallel(hashes, async (hash) => rm(this.fileOf(hash), { force: true }));
  }

  async retain(keep: Set<string>): Promise<number> {
    const entries = await readdir(this.dir, { recursive: true, withFileTypes: true }).catch(() => []);
    // Leftover temp files of interrupted atomic writes hold vectors too: anything not a kept vector goes.
    const gone = entries.filter((e) => e.isFile() && !keep.has(e.name.replace(/\.f32$/, ''))).map((e) => join(e.parentPath, e.name));
    await inParallel(gone, async (file) => rm(file, { force: true }));
    return gone.length;
  }
}
