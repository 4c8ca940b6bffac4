// Covers JsonAccessStats as searches use it: no file reads as no access, a touch is read back once settled (counted
// again on the next touch), remove and retain drop records, a damaged file reads as empty and is written anew, and a
// file another process wrote is read again while an unchanged one is not parsed twice.
import { readFile, stat, utimes, writeFile } from 'node:fs/promises';
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

  it("reads another process's writes and removals at the next search", async () => {
    const { dir, access } = await stats();
    const other = new JsonAccessStats(dir);
    access.touch([A], 1_000);
    await access.settle();
    expect([...(await access.get([A, B])).keys()]).toEqual([A]);
    other.touch([B], 2_000);
    await other.settle();
    expect(await access.get([A, B])).toEqual(
      new Map([
        [A, { lastAccessed: 1_000, count: 1 }],
        [B, { lastAccessed: 2_000, count: 1 }],
      ]),
    );
    await other.remove([A, B]);
    expect(await access.get([A, B])).toEqual(new Map());
  });

  it('does not parse the file again while it is the one it read (same inode, size and modification time)', async () => {
    const { dir, access } = await stats();
    access.touch([A], 1_000);
    await access.settle();
    const file = join(dir, 'access.json');
    // A whole second, which utimes sets exactly.
    const when = new Date(Math.floor((await stat(file)).mtimeMs / 1000) * 1000);
    await utimes(file, when, when);
    expect((await access.get([A])).get(A)?.lastAccessed).toBe(1_000);
    // Rewritten in place to the same length, its modification time put back: nothing a stat can tell apart.
    await writeFile(file, (await readFile(file, 'utf8')).replace('1000', '9999'), 'utf8');
    await utimes(file, when, when);
    expect((await access.get([A])).get(A)?.lastAccessed).toBe(1_000);
    // A new modification time is a new file.
    await utimes(file, when, new Date(when.getTime() + 1_000));
    expect((await access.get([A])).get(A)?.lastAccessed).toBe(9_999);
  });
});
