// The index is derived and rebuildable, so a person may delete the shared Milvus Lite's data (or drop a collection):
// the next search must find the memories again, not answer with nothing while every file counts as "unchanged".
import { readdir, rm } from 'node:fs/promises';

import { afterAll, describe, expect, it } from 'vitest';

import { serverLayout } from '../../src/memory/layout.js';
import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { runMem } from '../support/harness.js';
import { ownServerHome } from '../support/server-home.js';

describe("the shared Milvus Lite's data deleted by hand", () => {
  const home = ownServerHome();
  let root: string | undefined;
  afterAll(async () => {
    if (root) await runMem(['server', 'stop', '--all'], { root });
    await disposeE2eRoot(root);
  });

  it('the next search indexes the files again from the vector cache and finds the memory', async () => {
    root = await e2eRoot({ 'ann/semantic/bike.md': 'The blue bicycle is kept in the garden shed.\n' }, 'memdir-e2e-data-removed-');
    const search = () => runMem(['search', 'where is the bicycle', '--user', 'ann', '--json'], { root, env: { MEM_DAEMON: 'off' } });
    expect((await runMem(['reindex', '--json'], { root })).json).toMatchObject({ files: 1, errors: [] });
    expect((await search()).json.results.map((r: { path: string }) => r.path)).toEqual(['ann/semantic/bike.md']);

    expect((await runMem(['server', 'stop', '--all'], { root })).code).toBe(0);
    const data = serverLayout(home()).milvusData;
    expect((await readdir(data)).length).toBeGreaterThan(0);
    await rm(data, { recursive: true, force: true });

    const found = await search();
    expect(found.code).toBe(0);
    expect(found.json.results.map((r: { path: string }) => r.path)).toEqual(['ann/semantic/bike.md']);
    // Rebuilt for the new collection: doctor agrees, and the next sync is an ordinary no-op.
    expect((await runMem(['doctor', '--json'], { root })).code).toBe(0);
    expect((await runMem(['reindex', '--json'], { root })).json).toMatchObject({ skipped: 1, embedded: 0, upserted: 0 });
  });

  it('a sync that writes after the data is gone re-indexes every file', async () => {
    expect((await runMem(['server', 'stop', '--all'], { root })).code).toBe(0);
    await rm(serverLayout(home()).milvusData, { recursive: true, force: true });
    const added = await runMem(['add', 'Ann keeps the spare key under the flower pot', '--user', 'ann', '--json'], { root, env: { MEM_DAEMON: 'off' } });
    expect(added.code).toBe(0);
    const found = await runMem(['search', 'where is the bicycle', '--user', 'ann', '--json'], { root, env: { MEM_DAEMON: 'off' } });
    expect(found.json.results.map((r: { path: string }) => r.path)).toContain('ann/semantic/bike.md');
    // Both files have their rows in the new collection (doctor's index checks; bike.md is not committed to git).
    const doctor = await runMem(['doctor', '--json'], { root });
    expect(doctor.json.problems.map((p: { kind: string }) => p.kind)).toEqual(['uncommitted']);
  });
});
