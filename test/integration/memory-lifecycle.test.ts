// The library API on real parts (Milvus Lite + local model): sync, search eligibility, forget, bad files.
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cachedVectors } from '../support/cached-vectors.js';
import { openTestMemory, type TestMemory } from '../support/harness.js';

const fm = (fields: Record<string, string | number>) =>
  `---\n${Object.entries(fields)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n')}\n---\n`;

const FILES = {
  'alice/semantic/residence.md': `${fm({ id: 'alice-residence', user: 'alice', type: 'semantic' })}Alice lives in Munich, close to the English Garden.\n`,
  'alice/semantic/old-job.md': `${fm({ id: 'alice-old-job', user: 'alice', status: 'superseded' })}Alice works as a nurse at the Munich city hospital.\n`,
  'alice/working/parking.md': `${fm({ id: 'alice-parking', user: 'alice', type: 'working', expires: '2020-01-01T00:00:00Z' })}Alice parked her car on level 3 of the hospital garage.\n`,
  'alice/procedural/deploy.md': `${fm({ id: 'alice-deploy' })}# Deploying\n\nRun the tests first.\n\n\`\`\`bash\nnpm test && npm run deploy\n\`\`\`\n`,
  'wei/semantic/risk.md': `${fm({ id: 'wei-risk', user: 'wei' })}用户明确表示不接受股票类高风险产品，只考虑存款和国债。\n`,
  'wei/semantic/diet.md': `${fm({ id: 'wei-diet', user: 'wei' })}王伟不吃辣，对花生过敏，午饭通常点清淡的粤菜。\n`,
  'wei/episodic/move.md': `${fm({ id: 'wei-move', user: 'wei', type: 'episodic' })}与王伟讨论了上海办公室的搬迁计划，新办公室在浦东。\n`,
  'bob/semantic/residence.md': `${fm({ id: 'bob-residence', user: 'bob' })}Bob lives in Munich as well, in Schwabing.\n`,
};

describe('memory lifecycle on real Milvus Lite and the local model', () => {
  let t: TestMemory;

  beforeAll(async () => {
    t = await openTestMemory(FILES);
  });
  afterAll(async () => t?.cleanup());

  it('indexes every file, then skips them all when nothing changed', async () => {
    const first = await t.memory.reindex();
    expect(first).toMatchObject({ files: 8, errors: [] });
    expect(first.embedded).toBeGreaterThanOrEqual(8);
    const second = await t.memory.reindex();
    expect(second).toMatchObject({ files: 8, embedded: 0, upserted: 0, deleted: 0, skipped: 8, errors: [] });
  });

  it('finds a memory from a paraphrase that shares few words with it', async () => {
    const results = await t.memory.search({ query: 'which city is Alice based in?', user: 'alice', k: 3 });
    expect(results[0]?.id).toBe('alice-residence');
  });

  it('finds a Chinese memory from a Chinese query with no words in common, among other memories', async () => {
    const query = '这位客户愿意买基金吗？';
    for (const word of ['客户', '愿意', '基金']) expect(FILES['wei/semantic/risk.md']).not.toContain(word);
    const results = await t.memory.search({ query, user: 'wei', k: 3 });
    expect(results[0]?.id).toBe('wei-risk');
    expect(results.every((r) => r.user === 'wei')).toBe(true);
  });

  it('never returns superseded or expired memories, however similar', async () => {
    const nurse = await t.memory.search({ query: 'Alice works as a nurse at the Munich city hospital', user: 'alice', k: 10 });
    expect(nurse.map((r) => r.id)).not.toContain('alice-old-job');
    const parking = await t.memory.search({ query: 'where did Alice park her car', user: 'alice', k: 10 });
    expect(parking.map((r) => r.id)).not.toContain('alice-parking');
    expect(parking.every((r) => r.status === 'active')).toBe(true);
  });

  it("never returns another user's memory", async () => {
    const results = await t.memory.search({ query: 'Bob lives in Munich in Schwabing', user: 'alice', k: 20 });
    expect(results.length).toBeGreaterThan(0);
    expect(results.every((r) => r.user === 'alice')).toBe(true);
  });

  it('indexes a hand edit on reindex: only the texts holding the edit are embedded (its unit and the window around it)', async () => {
    const path = join(t.root, 'alice/procedural/deploy.md');
    const before = await readFile(path, 'utf8');
    await writeFile(path, before.replace('Run the tests first.', 'Run the linter and the tests first.'));
    const report = await t.memory.reindex();
    expect(report).toMatchObject({ embedded: 2, errors: [] });
    const results = await t.memory.search({ query: 'run the linter before deploying', user: 'alice', k: 1 });
    expect(results[0]?.id).toBe('alice-deploy');
    expect(results[0]?.content).toContain('linter');
  });

  it('reports a broken file by path and line, indexes the rest, and modifies no file', async () => {
    await writeFile(join(t.root, 'alice/semantic/broken.md'), '---\nid: broken\nimportance: high\n---\nBody\n');
    await writeFile(join(t.root, 'alice/semantic/fine.md'), `${fm({ id: 'alice-fine' })}Alice plays the cello on Sundays.\n`);
    const snapshot = async () => {
      const out: Record<string, string> = {};
      for (const dir of ['alice/semantic', 'alice/procedural', 'wei/semantic']) {
        for (const f of await readdir(join(t.root, dir))) {
          const p = join(t.root, dir, f);
          out[p] = `${(await stat(p)).mtimeMs}:${await readFile(p, 'utf8')}`;
        }
      }
      return out;
    };
    const before = await snapshot();
    const report = await t.memory.reindex();
    expect(report.errors).toEqual([{ path: 'alice/semantic/broken.md', line: 3, message: expect.stringContaining('importance') }]);
    expect(await snapshot()).toEqual(before);
    // Indexed and found; not asserted first: after the edits of the tests above, Milvus Lite's BM25 scored the new
    // row below an older one that shares only "Alice" (its BM25 statistics depend on how rows fall into segments).
    const results = await t.memory.search({ query: 'what instrument does Alice play', user: 'alice', k: 10 });
    expect(results.map((r) => r.id)).toContain('alice-fine');
  });

  it('rebuilds the whole index from the files without embedding anything again', async () => {
    const report = await t.memory.reindex({ rebuild: true });
    expect(report.embedded).toBe(0);
    expect(report.upserted).toBeGreaterThanOrEqual(7);
    const status = await t.memory.status();
    expect(status.indexRows).toBe(status.chunks);
  });

  it('forgets a user everywhere: files, rows, access statistics and cached vectors', async () => {
    const vectorsBefore = (await cachedVectors(t.root)).size;
    expect(await readFile(join(t.root, '.mem/access.json'), 'utf8')).toContain('wei');
    const result = await t.memory.forget({ user: 'wei', all: true });
    // Wei's three, and any vector of text no file holds any more (edited away by earlier steps): forget purges those too.
    expect((await cachedVectors(t.root)).size).toBeLessThanOrEqual(vectorsBefore - 3);
    expect(result.verified).toMatchObject({ indexRows: 0, index: 'rebuilt', stateHits: [] });
    expect(await readFile(join(t.root, '.mem/access.json'), 'utf8')).not.toContain('wei');
    expect(result.removed.map((r) => r.id).sort()).toEqual(['wei-diet', 'wei-move', 'wei-risk']);
    await expect(stat(join(t.root, 'wei/semantic/risk.md'))).rejects.toThrow();
    expect(await t.memory.search({ query: '股票 风险 存款', user: 'wei', k: 5 })).toEqual([]);
    const status = await t.memory.status();
    expect(status.users.wei).toBeUndefined();
    expect(status.indexRows).toBe(status.chunks);
  });
});
