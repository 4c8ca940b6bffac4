// Reads a root's vector cache (the newest LMDB generation of each model under `.mem/vectors/`) as the tests inspect it.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { open } from 'lmdb';

/** Every cached vector of the root, by text hash, as its float32 bytes. */
export async function cachedVectors(root: string): Promise<Map<string, Buffer>> {
  const dir = join(root, '.mem', 'vectors');
  const names = await readdir(dir).catch(() => [] as string[]);
  const newest = new Map<string, number>();
  for (const n of names) {
    const m = /^(.+)\.(\d+)\.mdb$/.exec(n);
    if (m && Number(m[2]) >= (newest.get(m[1]!) ?? -1)) newest.set(m[1]!, Number(m[2]));
  }
  const found = new Map<string, Buffer>();
  for (const [model, generation] of newest) {
    const db = open<Buffer, Buffer>({
      path: join(dir, `${model}.${generation}.mdb`),
      noSubdir: true,
      readOnly: true,
      keyEncoding: 'binary',
      encoding: 'binary',
      cache: false,
    });
    for (const { key, value } of db.getRange()) found.set(Buffer.from(key as Buffer).toString('utf8'), Buffer.from(value));
    await db.close();
  }
  return found;
}
