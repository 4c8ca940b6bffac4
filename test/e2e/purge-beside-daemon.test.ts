// A purge (`mem gc`, `mem forget`, `mem watch` after a deletion) drops the root's collection and builds it again in
// one process while the search daemon keeps the root open in another. Neither may then take the other's collection
// for one "created anew": that cleared the manifest and re-upserted every file on each later sync and search.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { DAEMON_READY_MS, daemonReady } from '../support/daemon-ready.js';
import { runMem, type MemRun } from '../support/harness.js';

const on = { MEM_DAEMON: 'on' };
const FILES = {
  'ann/semantic/bike.md': 'The blue bicycle is kept in the garden shed.\n',
  'ann/semantic/tea.md': 'Ann drinks green tea every morning.\n',
  'ann/semantic/piano.md': 'Ann practises the piano on Tuesdays.\n',
  'ann/semantic/key.md': 'The spare key is under the flower pot.\n',
};

/**
 * A sync that ran just after one file of the three was edited: it wrote that file or nothing (the daemon's own search
 * may have synced the edit first: its warm-up runs between searches), never the unchanged files again.
 */
function expectOnlyTheEdit(sync: MemRun): void {
  expect(sync.code).toBe(0);
  expect(sync.json.indexReplaced).toBeUndefined();
  expect(sync.json.upserted + sync.json.skipped).toBe(3);
  expect(sync.json.upserted).toBeLessThanOrEqual(1);
}

describe('a purge while the search daemon holds the root', () => {
  let root: string | undefined;
  afterAll(async () => {
    if (root) await runMem(['server', 'stop'], { root, env: on });
    await disposeE2eRoot(root);
  });

  it(
    'later syncs and searches write only what changed, never every file again',
    async () => {
      root = await e2eRoot(FILES, 'memdir-e2e-purge-daemon-');
      const search = (query: string) => runMem(['search', query, '--user', 'ann', '--json'], { root, env: on });
      expect((await search('where is the bicycle')).code).toBe(0);
      await daemonReady(root, on);

      // A hand deletion, purged by gc in its own process: the collection is dropped and built again there.
      await rm(join(root, 'ann/semantic/key.md'));
      const gc = await runMem(['gc', '--json'], { root, env: on });
      expect(gc.code).toBe(0);
      expect(gc.json.purge.index).toBe('rebuilt');

      // The daemon, which opened the collection before the purge, searches it.
      const found = await search('green tea');
      expect(found.json.results.map((r: { path: string }) => r.path)[0]).toBe('ann/semantic/tea.md');

      // An edit synced by a process of its own (no daemon) writes that file's rows and no other.
      await writeFile(join(root, 'ann/semantic/tea.md'), 'Ann drinks black tea every morning now.\n');
      expectOnlyTheEdit(await runMem(['reindex', '--json'], { root }));

      // And the daemon's next search finds the edit without indexing anything again: a no-op sync follows.
      const edited = await search('black tea');
      expect(edited.json.results.map((r: { content: string }) => r.content)[0]).toContain('black tea');
      await writeFile(join(root, 'ann/semantic/piano.md'), 'Ann practises the piano on Thursdays.\n');
      expectOnlyTheEdit(await runMem(['reindex', '--json'], { root }));
      // Whoever synced the edits, nothing is left to write: a no-op.
      expect((await runMem(['reindex', '--json'], { root })).json).toMatchObject({ upserted: 0, skipped: 3 });
      // The daemon's start (test/support/daemon-ready.ts), then eight `mem` processes.
    },
    DAEMON_READY_MS + 180_000,
  );
});
