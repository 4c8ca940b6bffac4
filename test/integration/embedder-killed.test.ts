// The local embedding server killed (SIGKILL) in the middle of a command, through the real `bin/mem`: the same
// clear error with the restart hint that a Milvus death gets, exit 1, nothing lost; the next command restarts it.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config.js';
import { cleanEnv, runMem, type MemRun } from '../support/harness.js';
import { expectedChunks, indexedChunks } from '../support/index-truth.js';
import { memKillingServer } from '../support/kill-server.js';
import { ownServerHome, serverRecord } from '../support/server-home.js';
import { tempRoot } from '../support/temp-root.js';

const note = (i: number, v: number) => `# Note ${i}\n\nAlice practised the viola, session ${i}, version ${v}.\n`;

function expectClearEmbeddingError(run: MemRun, home: string): void {
  expect(run.code).toBe(1);
  expect(run.json.error.code).toBe('EMBEDDING');
  expect(run.json.error.message).toContain(`The shared embedding server stopped or does not answer (log: ${join(home, 'servers', 'embedder.log')})`);
  expect(run.json.error.message).toMatch(/run the command again to restart it\. The memory files are unchanged/);
}

describe('the embedding server killed during a command', () => {
  const home = ownServerHome();
  const embedderPid = async () => (await serverRecord(home(), 'embedder')).pid;
  let root: string;

  beforeAll(async () => {
    root = await tempRoot(Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`alice/semantic/n${i}.md`, note(i, 0)])), 'memdir-it-embedder-kill-');
    expect((await runMem(['reindex', '--json'], { root })).code).toBe(0);
  });
  afterAll(async () => {
    await runMem(['server', 'stop'], { root });
    await rm(root, { recursive: true, force: true });
  });

  it('reindex: the restart hint; the next reindex restarts it and converges', async () => {
    for (let i = 0; i < 4; i++) await writeFile(join(root, `alice/semantic/n${i}.md`), note(i, 1));
    const before = await embedderPid();
    // At the first embedding request (after the health checks, which would restart a dead server).
    const killed = await memKillingServer(root, 'embedder', ['reindex'], 'fetch /embeddings');
    expectClearEmbeddingError(killed, home());

    const again = await runMem(['reindex', '--json'], { root });
    expect(again.code).toBe(0);
    expect(await embedderPid()).not.toBe(before);
    const config = loadConfig(cleanEnv(), { root });
    expect([...(await indexedChunks(root)).entries()].sort()).toEqual([...(await expectedChunks(config)).entries()].sort());
  });

  it('search: the restart hint; the next search restarts it and answers', async () => {
    const killed = await memKillingServer(root, 'embedder', ['search', 'viola practice', '--user', 'alice'], 'fetch /embeddings');
    expectClearEmbeddingError(killed, home());
    const again = await runMem(['search', 'viola practice', '--user', 'alice', '--json'], { root });
    expect(again.code).toBe(0);
    expect(again.json.results.length).toBeGreaterThan(0);
  });
});
