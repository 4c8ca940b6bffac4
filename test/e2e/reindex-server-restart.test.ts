// `mem reindex` when the shared Milvus Lite restarts (on another port) after the command connected and before its
// first index call, which its index worker makes at the old address: the command reconnects to the server running
// now and finishes, or fails with a clear error; it never waits for good (the test's own timeout bounds it).
import { appendFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runMem } from '../support/harness.js';
import { memKillingServer } from '../support/kill-server.js';
import { ownServerHome, serverRecord } from '../support/server-home.js';
import { tempRoot } from '../support/temp-root.js';

describe('mem reindex across a restart of the shared Milvus Lite', () => {
  const home = ownServerHome();
  let root: string;

  beforeAll(async () => {
    root = await tempRoot({}, 'memdir-e2e-restart-');
    expect((await runMem(['add', 'Ann keeps her bicycle in the shed', '--user', 'ann', '--json'], { root })).code).toBe(0);
  });
  afterAll(async () => {
    if (root) await runMem(['server', 'stop'], { root });
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('reconnects to the restarted server and indexes the edit', { timeout: 240_000 }, async () => {
    const dir = join(root, 'ann', 'semantic');
    const [file] = await readdir(dir);
    await appendFile(join(dir, file!), '\nShe oils its chain with quillfeather grease every spring.\n');
    const before = (await serverRecord(home(), 'milvus-lite')).pid;
    // The first Milvus call of the command (the worker's open) finds its server killed and a new one running.
    const run = await memKillingServer(root, 'milvus-lite', ['reindex'], 'describeCollection', undefined, true);
    expect((await serverRecord(home(), 'milvus-lite')).pid).not.toBe(before);
    expect(run.stderr).not.toMatch(/this is a bug/i);
    expect({ code: run.code, error: run.json?.error }).toEqual({ code: 0, error: undefined });
    expect(run.json.upserted).toBeGreaterThan(0);
    const found = await runMem(['search', 'quillfeather grease', '--user', 'ann', '--json'], { root });
    expect(JSON.stringify(found.json.results[0])).toContain('quillfeather');
  });
});
