// Covers JsonManifest's pending log: paths marked before their rows are written come back from load() as
// entries whose rows are unknown, until the next save; a torn last line is skipped.
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { JsonManifest } from '../../../../src/adapters/state/json-manifest.js';
import type { ManifestEntry } from '../../../../src/services/ports.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function manifest(): Promise<{ m: JsonManifest; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'memdir-manifest-'));
  dirs.push(dir);
  return { m: new JsonManifest(join(dir, '.mem'), 'test'), dir };
}

const entry = (id: string): ManifestEntry => ({
  size: 10,
  mtimeMs: 1000,
  sha: `sha-${id}`,
  memoryId: id,
  user: 'alice',
  type: 'semantic',
  status: 'active',
  chunks: [{ id: '0a', textHash: 'h' }],
});

describe('JsonManifest pending paths', () => {
  it('returns marked paths as entries that vouch for no rows until the next save', async () => {
    const { m } = await manifest();
    await m.save(new Map([['alice/semantic/a.md', entry('a')]]));
    await m.markPending(['alice/semantic/a.md', 'alice/semantic/new.md']);
    const loaded = (await m.load())!;
    expect(loaded.get('alice/semantic/a.md')).toMatchObject({ memoryId: 'a', sha: '', size: -1, unknownRows: true, chunks: [{ id: '0a' }] });
    expect(loaded.get('alice/semantic/new.md')).toMatchObject({ memoryId: '', sha: '', unknownRows: true, chunks: [] });

    await m.save(new Map([['alice/semantic/a.md', entry('a')]]));
    const saved = (await m.load())!;
    expect([...saved.keys()]).toEqual(['alice/semantic/a.md']);
    expect(saved.get('alice/semantic/a.md')!.unknownRows).toBeUndefined();
  });

  it('skips a line cut short by a kill', async () => {
    const { m, dir } = await manifest();
    await m.save(new Map());
    await m.markPending(['u/semantic/x.md']);
    await appendFile(join(dir, '.mem', 'manifest-test.json.pending'), '"u/semantic/y');
    expect([...(await m.load())!.keys()]).toEqual(['u/semantic/x.md']);
  });

  it('forgets pending paths with the manifest, and without a manifest there is nothing to load', async () => {
    const { m } = await manifest();
    await m.markPending(['u/semantic/x.md']);
    expect(await m.load()).toBeNull();
    await m.save(new Map());
    await m.markPending(['u/semantic/x.md']);
    await m.clear();
    await m.save(new Map());
    expect((await m.load())!.size).toBe(0);
  });
});
