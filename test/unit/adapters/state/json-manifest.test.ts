// Covers JsonManifest: the pending log (paths marked before their rows are written come back from load() as
// entries whose rows are unknown, until the next save; a torn last line is skipped), the journal (a save
// appends the changed entries; the base is rewritten when the journal grows or an entry goes), and the chunk
// lists kept apart (trusted only for the content they were written for).
import { appendFile, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { JsonManifest } from '../../../../src/adapters/state/json-manifest.js';
import { readBase } from '../../../../src/adapters/state/manifest-base.js';
import type { ChunkRef, ManifestEntry } from '../../../../src/services/ports.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** The base file's version and entries, whichever form it is in. */
async function baseAt(file: string): Promise<{ version: number; journal?: string; files: Map<string, ManifestEntry> }> {
  const base = (await readBase(file))!;
  return { version: base.version, ...(base.journal !== undefined ? { journal: base.journal } : {}), files: new Map(base.files) };
}

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
  chunkCount: 1,
});

describe('JsonManifest pending paths', () => {
  it('returns marked paths as entries that vouch for no rows until the next save', async () => {
    const { m } = await manifest();
    await m.save(new Map([['alice/semantic/a.md', entry('a')]]));
    await m.markPending(['alice/semantic/a.md', 'alice/semantic/new.md']);
    const loaded = (await m.load())!;
    expect(loaded.get('alice/semantic/a.md')).toMatchObject({ memoryId: 'a', sha: '', size: -1, unknownRows: true, chunkCount: 1 });
    expect(loaded.get('alice/semantic/new.md')).toMatchObject({ memoryId: '', sha: '', unknownRows: true, chunkCount: 0 });

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

describe('JsonManifest journal', () => {
  const files = (n: number, tag = '') => new Map(Array.from({ length: n }, (_, i) => [`u/semantic/m${i}.md`, entry(`m${i}${tag}`)]));
  const state = (dir: string, suffix = '') => join(dir, '.mem', `manifest-test.json${suffix}`);

  it('appends only the entries that changed, and a fresh store loads base and journal together', async () => {
    const { m, dir } = await manifest();
    const first = files(200);
    await m.save(first);
    const base = await readFile(state(dir), 'utf8');
    const loaded = (await m.load())!;
    loaded.set('u/semantic/m7.md', entry('changed'));
    loaded.set('u/semantic/new.md', entry('new'));
    await m.save(loaded);
    // The base is as it was; the journal holds the two entries and nothing of the 199 others.
    expect(await readFile(state(dir), 'utf8')).toBe(base);
    const journal = (await readFile(state(dir, '.journal'), 'utf8')).split('\n').filter(Boolean);
    expect(journal.slice(1).map((l) => (JSON.parse(l) as { p: string }).p)).toEqual(['u/semantic/m7.md', 'u/semantic/new.md']);

    const again = (await new JsonManifest(join(dir, '.mem'), 'test').load())!;
    expect(again.size).toBe(201);
    expect(again.get('u/semantic/m7.md')!.memoryId).toBe('changed');
    expect(again.get('u/semantic/new.md')!.memoryId).toBe('new');
    expect(again.get('u/semantic/m8.md')!.memoryId).toBe('m8');
  });

  it('skips a journal line torn by a kill, and the next save still loads', async () => {
    const { m, dir } = await manifest();
    await m.save(files(3));
    const loaded = (await m.load())!;
    loaded.set('u/semantic/m1.md', entry('one'));
    await m.save(loaded);
    await appendFile(state(dir, '.journal'), '{"p":"u/semantic/m2.md","e":{"size":1');
    const fresh = new JsonManifest(join(dir, '.mem'), 'test');
    const after = (await fresh.load())!;
    expect(after.get('u/semantic/m2.md')!.memoryId).toBe('m2');
    after.set('u/semantic/m0.md', entry('zero'));
    await fresh.save(after);
    const last = (await new JsonManifest(join(dir, '.mem'), 'test').load())!;
    expect([last.get('u/semantic/m0.md')!.memoryId, last.get('u/semantic/m1.md')!.memoryId, last.get('u/semantic/m2.md')!.memoryId]).toEqual([
      'zero',
      'one',
      'm2',
    ]);
  });

  it('rewrites the base when the journal outgrows it, and a removed entry leaves no trace in any file', async () => {
    const { m, dir } = await manifest();
    await m.save(files(2000));
    const baseBytes = (await stat(state(dir))).size;
    let current = (await m.load())!;
    // Each round changes every entry: the journal passes half the base within two rounds and is folded in.
    for (let round = 0; round < 3; round++) {
      current = files(2000, `-r${round}`);
      await m.save(current);
    }
    expect((await stat(state(dir, '.journal'))).size).toBeLessThan(baseBytes);
    expect((await new JsonManifest(join(dir, '.mem'), 'test').load())!.get('u/semantic/m5.md')!.memoryId).toBe('m5-r2');

    const loaded = (await m.load())!;
    loaded.set('u/semantic/secret-plan.md', entry('secret-plan'));
    // Its list holds hashes only (sha, ids, text hashes: none is a name), and is keyed by a hash of the path.
    await m.putChunks([{ path: 'u/semantic/secret-plan.md', sha: 'ab'.repeat(32), chunks: [{ id: '0a'.repeat(16), textHash: 'cd'.repeat(32) }] }]);
    await m.save(loaded);
    loaded.delete('u/semantic/secret-plan.md');
    await m.save(loaded);
    // The chunk list store included (its keys are hashes of the paths).
    expect(await readdir(join(dir, '.mem'))).toContain('manifest-test.json.chunks');
    for (const name of await readdir(join(dir, '.mem'))) expect(await readFile(join(dir, '.mem', name), 'utf8')).not.toContain('secret-plan');
    expect((await m.load())!.has('u/semantic/secret-plan.md')).toBe(false);
    expect((await m.chunksOf([['u/semantic/secret-plan.md', entry('secret-plan')]])).size).toBe(0);
  });

  it('ignores the journal of an older base (a compaction killed before it replaced the journal)', async () => {
    const { m, dir } = await manifest();
    await m.save(files(3));
    const loaded = (await m.load())!;
    loaded.set('u/semantic/m1.md', entry('old'));
    await m.save(loaded);
    const oldJournal = await readFile(state(dir, '.journal'), 'utf8');
    // A compaction (here forced by a removal) writes the base, then the journal: put the old journal back.
    loaded.set('u/semantic/m1.md', entry('new'));
    loaded.delete('u/semantic/m2.md');
    await m.save(loaded);
    await writeFile(state(dir, '.journal'), oldJournal);
    const fresh = new JsonManifest(join(dir, '.mem'), 'test');
    const after = (await fresh.load())!;
    expect(after.get('u/semantic/m1.md')!.memoryId).toBe('new');
    expect(after.has('u/semantic/m2.md')).toBe(false);
    // The next save starts a journal of its own base.
    after.set('u/semantic/m0.md', entry('zero'));
    await fresh.save(after);
    expect((await new JsonManifest(join(dir, '.mem'), 'test').load())!.get('u/semantic/m0.md')!.memoryId).toBe('zero');
  });
});

describe('JsonManifest base', () => {
  it('writes the base as all the entries, and leaves no temporary file', async () => {
    const { m, dir } = await manifest();
    const state = join(dir, '.mem');
    await m.save(new Map());
    // A temporary base a killed write left behind names memories too: the next base write removes it.
    await writeFile(join(state, 'manifest-test.json.base-left-by-a-kill'), '{"files":{"alice/semantic/gone.md":{}}}');
    const entries = new Map(Array.from({ length: 4_500 }, (_, i) => [`alice/semantic/m${i}.md`, entry(`m${i}`)] as const));
    // A journal this long (~0.8 MB against an empty base) has the base rewritten.
    await m.save(entries);
    const base = await baseAt(join(state, 'manifest-test.json'));
    expect(base.files).toEqual(entries);
    expect(base.version).toBe(6);
    expect(await readdir(state)).toEqual(expect.not.arrayContaining([expect.stringMatching(/base-/)]));
    expect((await new JsonManifest(state, 'test').load())!.size).toBe(4_500);
  });
});

describe('JsonManifest chunk lists', () => {
  const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');
  const chunks = (n: number, tag: number): ChunkRef[] =>
    Array.from({ length: n }, (_, i) => ({ id: hex(tag * 100 + i, 32), textHash: hex(tag * 100 + i + 7, 64) }));
  const withSha = (id: string, sha: string, count: number): ManifestEntry => ({ ...entry(id), sha, chunkCount: count });
  const SHA_A = hex(0xa, 64);
  const SHA_B = hex(0xb, 64);

  it('are kept apart from the entries and trusted only for the content they were written for', async () => {
    const { m, dir } = await manifest();
    const a = withSha('a', SHA_A, 3);
    await m.putChunks([
      { path: 'u/semantic/a.md', sha: SHA_A, chunks: chunks(3, 1) },
      { path: 'u/semantic/b.md', sha: SHA_B, chunks: chunks(2, 2) },
    ]);
    await m.save(new Map([['u/semantic/a.md', a]]));
    // The manifest holds a count, not the list.
    expect(await readFile(join(dir, '.mem', 'manifest-test.json'), 'utf8')).not.toContain(chunks(3, 1)[0]!.textHash);
    const lists = await m.chunksOf([
      ['u/semantic/a.md', a],
      // Written for other content (the entry names another sha): not trusted, its rows go by path.
      ['u/semantic/b.md', withSha('b', SHA_A, 2)],
      ['u/semantic/none.md', withSha('none', SHA_A, 1)],
    ]);
    expect([...lists.keys()]).toEqual(['u/semantic/a.md']);
    expect(lists.get('u/semantic/a.md')).toEqual(chunks(3, 1));
    // An entry that vouches for no content (a killed sync's) gets the last list written.
    expect((await m.chunksOf([['u/semantic/b.md', withSha('b', '', 2)]])).get('u/semantic/b.md')).toEqual(chunks(2, 2));
    expect(await m.textHashes(new Map([['u/semantic/a.md', a]]))).toEqual(new Set(chunks(3, 1).map((c) => c.textHash)));
  });

  it('go with their entry, and with clear()', async () => {
    const { m } = await manifest();
    const a = withSha('a', SHA_A, 3);
    const b = withSha('b', SHA_B, 2);
    await m.putChunks([
      { path: 'u/semantic/a.md', sha: SHA_A, chunks: chunks(3, 1) },
      { path: 'u/semantic/b.md', sha: SHA_B, chunks: chunks(2, 2) },
    ]);
    await m.save(
      new Map([
        ['u/semantic/a.md', a],
        ['u/semantic/b.md', b],
      ]),
    );
    await m.save(new Map([['u/semantic/a.md', a]]));
    // Even for an entry of the same content written again: the removed list is gone from the store.
    expect((await m.chunksOf([['u/semantic/b.md', b]])).size).toBe(0);
    expect((await m.chunksOf([['u/semantic/a.md', a]])).size).toBe(1);
    await m.clear();
    expect((await m.chunksOf([['u/semantic/a.md', a]])).size).toBe(0);
  });
});
