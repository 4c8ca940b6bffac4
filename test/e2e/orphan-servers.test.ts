// A memory root deleted on disk leaves no servers behind: its Milvus Lite and embedding server notice that
// their records folder is gone and exit on their own, without anyone running `mem server stop`.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { eventually } from '../support/eventually.js';
import { runMem } from '../support/harness.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('servers of a deleted root', () => {
  let root: string | undefined;
  let pids: number[] = [];
  afterAll(async () => {
    // Should the servers have outlived the root, the test does not leave them running either.
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await disposeE2eRoot(root);
  });

  it('stop by themselves within a minute once the root is removed', async () => {
    root = await e2eRoot({ 'ann/semantic/tea.md': 'Ann drinks green tea every morning.\n' }, 'memdir-e2e-orphan-');
    const indexed = await runMem(['reindex', '--json'], { root });
    expect(indexed.code).toBe(0);
    const servers = join(root, '.mem', 'servers');
    pids = await Promise.all(
      ['milvus-lite', 'embedder'].map(async (name) => (JSON.parse(await readFile(join(servers, `${name}.json`), 'utf8')) as { pid: number }).pid),
    );
    expect(pids.every(alive)).toBe(true);

    await rm(root, { recursive: true, force: true });
    await eventually(async () => pids.every((pid) => !alive(pid)), 'both servers to exit after their root was deleted', 60_000, 500);
    expect(pids.map(alive)).toEqual([false, false]);
  });
});
