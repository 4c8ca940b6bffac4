// Covers the manifest's base file: version 6 (MessagePack) written and read back exactly, whatever shapes the entries
// have; a JSON base of an earlier version still read; a damaged or cut-short base read as absent, never half.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { BASE_VERSION, readBase, writeBase } from '../../../../src/adapters/state/manifest-base.js';
import type { ManifestEntry } from '../../../../src/services/ports.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function baseFile(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'memdir-base-'));
  dirs.push(dir);
  return join(dir, 'manifest-test.json');
}

/** Entries of many shapes (every optional key on or off: more shapes than msgpackr keeps record ids for). */
function varied(n: number): Map<string, ManifestEntry> {
  const entries = new Map<string, ManifestEntry>();
  for (let i = 0; i < n; i++) {
    const e: ManifestEntry = {
      size: i % 5 === 0 ? -1 : 100 + i,
      mtimeMs: 1_796_210_229_127 + i,
      sha: i % 7 === 0 ? '' : i.toString(16).padStart(64, '0'),
      memoryId: `m-${i}-josé`,
      user: i % 2 ? 'alice' : 'bob',
      type: 'semantic',
      status: i % 3 ? 'active' : 'superseded',
      chunkCount: i % 9,
    };
    if (i & 1) e.expires = 1_800_000_000_000 + i;
    if (i & 2) e.key = `k${i}`;
    if (i & 4) e.source = `s${i}`;
    if (i & 8) e.supersedes = i & 16 ? [`a${i}`, `b${i}`] : `a${i}`;
    if (i & 32) e.sources = [`x${i}`];
    if (i & 64) e.supersededBy = `y${i}`;
    if (i & 128) e.consolidatedInto = `z${i}`;
    if (i & 256) e.unknownRows = true;
    if (i & 512) e.fileStatus = 'active';
    entries.set(`u${i % 3}/semantic/ünï-${i}.md`, e);
  }
  return entries;
}

describe('manifest base', () => {
  it('reads back exactly the entries written, in order, with the journal name and version 6', async () => {
    const file = await baseFile();
    const entries = varied(2_100);
    const bytes = await writeBase(file, 'journal-1', entries);
    expect((await readFile(file)).length).toBe(bytes);
    const base = (await readBase(file))!;
    expect(base.version).toBe(BASE_VERSION);
    expect(base.journal).toBe('journal-1');
    expect(base.bytes).toBe(bytes);
    const read = new Map(base.files);
    expect([...read.keys()]).toEqual([...entries.keys()]);
    expect(read).toEqual(entries);
  });

  it('reads a base of another version as absent: a JSON base of an earlier one, or a later header', async () => {
    const file = await baseFile();
    const entries = varied(10);
    await writeFile(file, JSON.stringify({ version: 5, journal: 'j5', files: Object.fromEntries(entries) }));
    expect(await readBase(file)).toBeNull();
    await writeFile(file, JSON.stringify({ version: 3, files: Object.fromEntries(entries) }));
    expect(await readBase(file)).toBeNull();
    await writeBase(file, 'j', entries);
    const later = Buffer.from(`memdir-manifest ${BASE_VERSION + 1}\n`);
    await writeFile(file, Buffer.concat([later, (await readFile(file)).subarray(later.length)]));
    expect(await readBase(file)).toBeNull();
  });

  it('reads a missing, damaged or cut-short base as absent', async () => {
    const file = await baseFile();
    expect(await readBase(file)).toBeNull();
    await writeBase(file, 'j', varied(50));
    const whole = await readFile(file);
    await writeFile(file, whole.subarray(0, Math.floor(whole.length / 2)));
    expect(await readBase(file)).toBeNull();
    await writeFile(file, '{"version":5,"files":{"a.md":');
    expect(await readBase(file)).toBeNull();
    await writeFile(file, Buffer.concat([whole.subarray(0, 20), Buffer.from([0xc1, 0xc1, 0xc1])]));
    expect(await readBase(file)).toBeNull();
  });
});
