// Covers JsonAccessStats as searches use it: no file reads as no access, a touch is read back once settled (counted
// again on the next touch), remove and retain drop records, and a damaged file reads as empty and is written anew.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { JsonAccessStats } from '../../../../src/adapters/state/json-access-stats.js';
import { STATE_DIR } from '../../../../src/memory/layout.js';
import { accessKey } from '../../../../src/services/ports.js';
import { tempRoot } from '../../../support/temp-root.js';

const A = accessKey('alice', 'tea');
const B = accessKey('alice', 'key');

async function stats() {
  const dir = join(await tempRoot(), STATE_DIR);
  return { dir, access: new JsonAccessStats(dir) };
}

describe('JsonAccessStats', () => {
  it('reads nothing before any touch, then each touch once settled', async () => {
    const { access } = await stats();
    expect(await access.get([A, B])).toEqual(new Map());
    access.touch([A, B], 1_000);
    await access.settle();
    access.touch([A], 2_000);
    await access.settle();
    expect(await access.get([A, B, accessKey('bob', 'tea')])).toEqual(
      new Map([
        [A, { lastAccessed: 2_000, count: 2 }],
        [B, { lastAccessed: 1_000, count: 1 }],
      ]),
    );
  });

  it('removes and retains records', async () => {
    const { access } = await stats();
    access.touch([A, B], 1_000);
    await access.settle();
    await access.remove([A]);
    expect([...(await access.get([A, B])).keys()]).toEqual([B]);
    access.touch([A], 3_000);
    await access.settle();
    expect(await access.retain(new Set([A]))).toBe(1);
    expect([...(await access.get([A, B])).keys()]).toEqual([A]);
  });

  it('reads a damaged file as no access, and the next touch writes it anew', async () => {
    const { dir, access } = await stats();
    access.touch([A], 1_000);
    await access.settle();
    const file = join(dir, 'access.json');
    await writeFile(file, '{"broken', 'utf8');
    expect(await access.get([A])).toEqual(new Map());
    access.touch([B], 2_000);
    await access.settle();
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ [B]: { lastAccessed: 2_000, count: 1 } });
  });
});
