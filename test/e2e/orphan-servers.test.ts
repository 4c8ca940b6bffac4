// A memory root deleted on disk leaves no servers behind: the shared Milvus Lite and embedding server notice that no
// root they serve is left and exit on their own, without anyone running `mem server stop`; until then (and after)
// `mem server status` reports the deleted root's collection as an orphan.
import { rm } from 'node:fs/promises';

import { afterAll, describe, expect, it } from 'vitest';

import { isAlive } from '../../src/adapters/state/process-alive.js';
import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { eventually } from '../support/eventually.js';
import { runMem } from '../support/harness.js';
import { ownServerHome, serverRecord } from '../support/server-home.js';

describe('servers of a deleted root', () => {
  const home = ownServerHome();
  let root: string | undefined;
  let other: string | undefined;
  let pids: number[] = [];
  afterAll(async () => {
    // Should the servers have outlived the root, the test does not leave them running either.
    for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    await disposeE2eRoot(root);
    await disposeE2eRoot(other);
  });

  it('stop by themselves within a minute once the last root is removed, and the orphan collection is reported', async () => {
    root = await e2eRoot({ 'ann/semantic/tea.md': 'Ann drinks green tea every morning.\n' }, 'memdir-e2e-orphan-');
    const indexed = await runMem(['reindex', '--json'], { root });
    expect(indexed.code).toBe(0);
    pids = await Promise.all((['milvus-lite', 'embedder'] as const).map(async (name) => (await serverRecord(home(), name)).pid));
    expect(pids.every(isAlive)).toBe(true);
    const collection = (await runMem(['server', 'status', '--json'], { root })).json.roots.find((r: { current: boolean }) => r.current).collection;
    expect(collection).toMatch(/^memdir_[0-9a-f]{16}$/);

    await rm(root, { recursive: true, force: true });
    // Reported from any other root (nothing is started by status).
    other = await e2eRoot({}, 'memdir-e2e-orphan-other-');
    const status = await runMem(['server', 'status', '--json'], { root: other });
    expect(status.json.roots).toEqual([expect.objectContaining({ collection, root, state: 'orphan', current: false })]);

    await eventually(async () => pids.every((pid) => !isAlive(pid)), 'both servers to exit after their only root was deleted', 60_000, 500);
    expect(pids.map(isAlive)).toEqual([false, false]);
  });
});
