// `mem doctor [--fix]` end to end: damage the index behind memdir's back, see it named, repair it, exit codes 1 then 0.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { runMem } from '../support/harness.js';
import { liteClient, rootCollection } from '../support/index-truth.js';

/** Deletes a path's rows straight in Milvus Lite, as a crash or a manual edit might. */
async function dropRowsBehindOurBack(root: string, path: string): Promise<void> {
  const client = await liteClient(root);
  await client.delete({ collection_name: await rootCollection(root), filter: `path == "${path}"` });
  await client.closeConnection();
}

describe('mem doctor', () => {
  let root: string;

  beforeAll(async () => {
    root = await e2eRoot(
      {
        'alice/semantic/a.md': 'Alice runs a marathon every spring.\n',
        'alice/semantic/b.md': 'Alice keeps bees on her balcony.\n',
      },
      'memdir-e2e-doctor-',
    );
    expect((await runMem(['reindex'], { root })).code).toBe(0);
  });
  afterAll(async () => {
    await disposeE2eRoot(root);
  });

  it('says all is well on a synced root (exit 0)', async () => {
    const res = await runMem(['doctor', '--json'], { root });
    expect(res.code).toBe(0);
    expect(res.json).toEqual({ ok: true, files: 2, manifestEntries: 2, indexRows: 2, problems: [], repaired: [] });
  });

  it('names lost rows, unindexed and invalid files (exit 1), repairs what it can, and leaves the rest to you', async () => {
    await dropRowsBehindOurBack(root, 'alice/semantic/a.md');
    await writeFile(join(root, 'alice/semantic/c.md'), 'Alice learns Portuguese on Tuesdays.\n');
    await writeFile(join(root, 'alice/semantic/bad.md'), '---\nimportance: very\n---\nx\n');

    const found = await runMem(['doctor', '--json'], { root });
    expect(found.code).toBe(1);
    expect(found.json.problems.map((p: { kind: string; path: string }) => `${p.kind} ${p.path}`).sort()).toEqual([
      'invalid-file alice/semantic/bad.md',
      'missing-rows alice/semantic/a.md',
      'missing-rows alice/semantic/c.md',
      'unindexed alice/semantic/c.md',
    ]);
    const human = await runMem(['doctor'], { root });
    expect(human.code).toBe(1);
    expect(human.stdout).toContain('(needs you) invalid-file: alice/semantic/bad.md:2: front matter "importance"');
    expect(human.stderr.trim()).toBe('mem: 4 problem(s); `mem doctor --fix` repairs 3 of them');

    const fixed = await runMem(['doctor', '--fix', '--json'], { root });
    expect(fixed.code).toBe(1);
    expect(fixed.json.repaired).toHaveLength(3);
    expect(fixed.json.problems.map((p: { kind: string }) => p.kind)).toEqual(['invalid-file']);
    const found2 = await runMem(['search', 'marathon', '--user', 'alice', '--json'], { root });
    expect(found2.json.results[0].path).toBe('alice/semantic/a.md');

    await rm(join(root, 'alice/semantic/bad.md'));
    const clean = await runMem(['doctor', '--json'], { root });
    expect(clean.code).toBe(0);
    expect(clean.json).toMatchObject({ ok: true, files: 3, indexRows: 3 });
  });
});
