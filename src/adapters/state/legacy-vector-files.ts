// Reads the per-file vector cache of earlier versions (`<dir>/<xx>/<hash>.f32`, raw float32) in batches, for the move into one store.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

const PARALLEL = 64;
const PER_BATCH = 5_000;

/** Hands `write` the vectors as [hash, float32 bytes], a batch at a time; unreadable files and temp files are left out. */
export async function importLegacyVectors(dir: string, write: (entries: [string, Buffer][]) => void): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  // Leftover temp files of interrupted atomic writes are no vectors one can trust: they are dropped with the folder.
  const files = entries.filter((e) => e.isFile() && /^[0-9a-f]+\.f32$/.test(e.name)).map((e) => join(e.parentPath, e.name));
  let imported = 0;
  for (let i = 0; i < files.length; i += PER_BATCH) {
    const batch: [string, Buffer][] = [];
    const slice = files.slice(i, i + PER_BATCH);
    for (let j = 0; j < slice.length; j += PARALLEL) {
      await Promise.all(
        slice.slice(j, j + PARALLEL).map(async (file) => {
          const bytes = await readFile(file).catch(() => null);
          if (bytes && bytes.length > 0 && bytes.length % 4 === 0) batch.push([file.slice(file.lastIndexOf('/') + 1, -'.f32'.length), bytes]);
        }),
      );
    }
    write(batch);
    imported += batch.length;
  }
  return imported;
}
