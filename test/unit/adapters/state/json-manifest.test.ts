// Covers JsonManifest: the pending log (paths marked before their rows are written come back from load() as
// entries whose rows are unknown, until the next save; a torn last line is skipped), and the journal (a save
// appends the changed entries; the base is rewritten when the journal grows or an entry goes).
import { appendFile, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
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
    await m.save(loaded);
    loaded.delete('u/semantic/secret-plan.md');
    await m.save(loaded);
    for (const name of await readdir(join(dir, '.mem'))) expect(await readFile(join(dir, '.mem', name), 'utf8')).not.toContain('secret-plan');
    expect((await m.load())!.has('u/semantic/secret-plan.md')).toBe(false);
  });

  it('loads a version 3 manifest (one JSON file) and gives it a journal on the first save', async () => {
    const { m, dir } = await manifest();
    await m.save(new Map());
    await writeFile(state(dir), JSON.stringify({ version: 3, files: Object.fromEntries(files(3)) }));
    await rm(state(dir, '.journal'));
    const fresh = new JsonManifest(join(dir, '.mem'), 'test');
    const loaded = (await fresh.load())!;
    expect([...loaded.keys()]).toHaveLength(3);
    loaded.set('u/semantic/m1.md', entry('one'));
    await fresh.save(loaded);
    expect((JSON.parse(await readFile(state(dir), 'utf8')) as { version: number }).version).toBe(4);
    expect((await new JsonManifest(join(dir, '.mem'), 'test').load())!.get('u/semantic/m1.md')!.memoryId).toBe('one');
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
  it('writes the base a few thousand entries at a time as the very JSON of all of them, and leaves no temporary file', async () => {
    const { m, dir } = await manifest();
    const state = join(dir, '.mem');
    await m.save(new Map());
    // A temporary base a killed write left behind names memories too: the next base write removes it.
    await writeFile(join(state, 'manifest-test.json.base-left-by-a-kill'), '{"files":{"alice/semantic/gone.md":{}}}');
    const entries = new Map(Array.from({ length: 4_500 }, (_, i) => [`alice/semantic/m${i}.md`, entry(`m${i}`)] as const));
    // A journal this long (~0.8 MB against an empty base) has the base rewritten: 4,500 entries over three writes.
    await m.save(entries);
    const base = JSON.parse(await readFile(join(state, 'manifest-test.json'), 'utf8')) as { version: number; journal: string; files: object };
    expect(base.files).toEqual(Object.fromEntries(entries));
    expect(base.version).toBe(4);
    expect(await readdir(state)).toEqual(expect.not.arrayContaining([expect.stringMatching(/base-/)]));
    expect((await new JsonManifest(state, 'test').load())!.size).toBe(4_500);
  });
});
