// Milvus Lite killed (SIGKILL) in the middle of a command: a clear error and exit 1, nothing lost, and the next
// command restarts the server and converges. The kill lands at a deterministic step (test/support/kill-at.mjs).
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadConfig, type MemConfig } from '../../src/config.js';
import { cleanEnv, runMem, type MemRun } from '../support/harness.js';
import { expectedChunks, indexedChunks } from '../support/index-truth.js';
import { memKillingServer } from '../support/kill-server.js';
import { ownServerHome, serverRecord } from '../support/server-home.js';
import { tempRoot } from '../support/temp-root.js';

const note = (i: number, v: number) => `# Note ${i}\n\nAlice practised the cello, session ${i}, version ${v}.\n`;

/** Runs `mem <args> --json`; at step `killAt` (or the first call of that Milvus method) the root's Milvus Lite server is killed. */
function memKillingMilvus(root: string, args: string[], killAt: number | string, stepsFile?: string): Promise<MemRun> {
  return memKillingServer(root, 'milvus-lite', args, killAt, stepsFile);
}

async function expectConverged(config: MemConfig): Promise<void> {
  const status = await runMem(['status', '--json'], { root: config.root });
  expect(status.json.drift).toMatchObject({ inSync: true, rowsMismatch: false });
  const expected = await expectedChunks(config);
  expect([...(await indexedChunks(config.root)).entries()].sort()).toEqual([...expected.entries()].sort());
}

function expectClearIndexError(run: MemRun): void {
  expect(run.code).toBe(1);
  expect(run.json.error.code).toBe('INDEX_UNAVAILABLE');
  expect(run.json.error.message).toMatch(/shared Milvus Lite server stopped/);
  expect(run.json.error.message).toMatch(/run the command again/);
}

describe('Milvus Lite killed during a command', () => {
  const home = ownServerHome();
  const milvusPid = async () => (await serverRecord(home(), 'milvus-lite')).pid;
  let root: string;
  let config: MemConfig;

  beforeAll(async () => {
    root = await tempRoot(Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`alice/semantic/n${i}.md`, note(i, 0)])), 'memdir-it-milvus-kill-');
    config = loadConfig(cleanEnv(), { root });
    expect((await runMem(['reindex', '--json'], { root })).code).toBe(0);
  });
  afterAll(async () => {
    await runMem(['server', 'stop'], { root });
    await rm(root, { recursive: true, force: true });
  });

  it('reindex: clear error; the next reindex restarts it and converges', async () => {
    for (let i = 0; i < 3; i++) await writeFile(join(root, `alice/semantic/n${i}.md`), note(i, 1));
    // Halfway through the sync's steps (measured on a run that kills nothing).
    const stepsFile = join(root, '..', 'milvus-kill-steps');
    await writeFile(join(root, 'alice/semantic/n5.md'), note(5, 1));
    expect((await memKillingMilvus(root, ['reindex'], Number.POSITIVE_INFINITY, stepsFile)).code).toBe(0);
    const steps = Number(await readFile(stepsFile, 'utf8'));
    for (let i = 0; i < 3; i++) await writeFile(join(root, `alice/semantic/n${i}.md`), note(i, 2));

    const before = await milvusPid();
    const killed = await memKillingMilvus(root, ['reindex'], Math.ceil(steps / 2));
    expectClearIndexError(killed);
    const again = await runMem(['reindex', '--json'], { root });
    expect(again.code).toBe(0);
    expect(await milvusPid()).not.toBe(before);
    // The restarted server (on a new port) keeps the same manifest: unchanged files are not read again.
    expect(again.json.skipped).toBeGreaterThanOrEqual(2);
    await expectConverged(config);
  });

  it('search: clear error; the next search restarts it and answers', async () => {
    // At the search's first Milvus search call (after the health checks, which would restart a dead server).
    const killed = await memKillingMilvus(root, ['search', 'cello practice', '--user', 'alice'], 'search');
    expectClearIndexError(killed);
    const again = await runMem(['search', 'cello practice', '--user', 'alice', '--json'], { root });
    expect(again.code).toBe(0);
    expect(again.json.results.length).toBeGreaterThan(0);
  });

  it('add: clear error, the files are put back as they were, and the same add then succeeds once', async () => {
    // At the insert of the new memory's rows (a path the index holds nothing of): the file is written, the index write fails.
    const killed = await memKillingMilvus(root, ['add', 'Alice bought a new cello bow in Leipzig', '--user', 'alice'], 'insert');
    expectClearIndexError(killed);
    const { stdout: status } = await runMem(['status', '--json'], { root });
    expect(JSON.parse(status).drift.unindexed).toEqual([]);
    const again = await runMem(['add', 'Alice bought a new cello bow in Leipzig', '--user', 'alice', '--json'], { root });
    expect(again.json.action).toBe('ADD');
    const found = await runMem(['search', 'cello bow Leipzig', '--user', 'alice', '--json'], { root });
    expect(found.json.results.filter((r: { content: string }) => r.content.includes('Leipzig'))).toHaveLength(1);
    await expectConverged(config);
  });
});
