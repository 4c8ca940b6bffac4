// Covers the move of an existing root's per-file vector cache (`.mem/vectors/<model>/<xx>/<hash>.f32`, earlier
// versions) into the LMDB store: by itself, on the first command, with nothing embedded again, and the folder removed.
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cachedVectors } from '../support/cached-vectors.js';
import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { runMem } from '../support/harness.js';

describe('vector cache of an earlier version', () => {
  let root: string;

  beforeAll(async () => {
    root = await e2eRoot({
      'alice/semantic/seats.md': 'Alice prefers window seats on long flights.\n',
      'alice/semantic/tea.md': 'Alice drinks green tea without sugar.\n',
      'bob/semantic/bike.md': '# Commute\n\nBob cycles to work along the river.\n',
    });
  });
  afterAll(async () => {
    await disposeE2eRoot(root);
  });

  it('is moved into the store on first use: a rebuild embeds nothing, and the old folder is gone', async () => {
    const first = await runMem(['reindex', '--json'], { root });
    expect(first.json.embedded).toBe(3);
    const vectors = await cachedVectors(root);
    expect(vectors.size).toBe(3);

    // Turn the root into one of an earlier version: the same vectors as one file each, and no store.
    const dir = join(root, '.mem', 'vectors');
    const stores = (await readdir(dir)).filter((n) => n.endsWith('.mdb'));
    expect(stores).toHaveLength(1);
    const model = stores[0]!.replace(/\.\d+\.mdb$/, '');
    for (const name of await readdir(dir)) await rm(join(dir, name), { recursive: true, force: true });
    const legacy = join(dir, model);
    for (const [hash, bytes] of vectors) {
      await mkdir(join(legacy, hash.slice(0, 2)), { recursive: true });
      await writeFile(join(legacy, hash.slice(0, 2), `${hash}.f32`), bytes);
    }

    const rebuilt = await runMem(['reindex', '--rebuild', '--json'], { root });
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.json.embedded).toBe(0);
    expect(rebuilt.json.upserted).toBe(3);
    expect(existsSync(legacy)).toBe(false);
    const moved = await cachedVectors(root);
    expect([...moved.keys()].sort()).toEqual([...vectors.keys()].sort());
    for (const [hash, bytes] of vectors) expect(Buffer.compare(moved.get(hash)!, bytes)).toBe(0);
    const found = await runMem(['search', 'which seat does Alice like', '-u', 'alice', '--json'], { root });
    expect(found.json.results[0].path).toBe('alice/semantic/seats.md');
  });
});
