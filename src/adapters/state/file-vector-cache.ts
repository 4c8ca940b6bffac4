// VectorCache as one small float32 file per text hash under `.mem/vectors/<model>/`.
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import writeFileAtomic from 'write-file-atomic';

import type { VectorCache } from '../../services/ports.js';
import { stateLayout } from '../../memory/layout.js';

const PARALLEL = 64;

async function inParallel<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += PARALLEL) await Promise.all(items.slice(i, i + PARALLEL).map(fn));
}

export class FileVectorCache implements VectorCache {
  private readonly dir: string;

  constructor(root: string, modelKey: string) {
    this.dir = stateLayout(root).vectors(modelKey);
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
}
