// Covers the daemon's warm-up plan: the first user ahead of the others, one step at a time, none while a search
// runs or before a quiet moment after one, users who searched themselves skipped, a closed root's steps dropped,
// and the users of a root read from its folders.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { WarmUpQueue, rootUsers } from '../../../src/daemon/warm-up.js';
import { eventually } from '../../support/eventually.js';
import { tempRoot } from '../../support/temp-root.js';

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

/** A queue whose warm-up searches finish only when the test says so. */
function queue(quietMs: number) {
  const started: string[] = [];
  const finish: (() => void)[] = [];
  let running = 0;
  let maxRunning = 0;
  const q = new WarmUpQueue({
    quietMs,
    warm: (root, user, first) => {
      started.push(`${root}:${user}${first ? ' (first)' : ''}`);
      maxRunning = Math.max(maxRunning, ++running);
      return new Promise<void>((resolve) => finish.push(() => (running--, resolve())));
    },
  });
  const endStep = async () => {
    await eventually(async () => finish.length > 0, 'a warm-up step to start', 5_000);
    finish.shift()!();
  };
  return { q, started, endStep, maxRunning: () => maxRunning };
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('daemon warm-up queue', () => {
  it('warms the first user first, then the others one at a time, and counts what is left', async () => {
    const w = queue(0);
    w.q.add('/r', ['ann', 'bob', 'cy'], 'bob');
    expect(w.q.remaining()).toBe(3);
    await w.endStep();
    await w.endStep();
    await w.endStep();
    await eventually(async () => w.q.remaining() === 0, 'the queue to empty', 5_000);
    expect(w.started).toEqual(['/r:bob (first)', '/r:ann', '/r:cy']);
    expect(w.maxRunning()).toBe(1);
  });

  it('starts no step while a search runs, nor until the quiet time after it has passed', async () => {
    const w = queue(150);
    w.q.searchStarted('/r', 'cy');
    w.q.add('/r', ['ann', 'bob']);
    await tick(300);
    expect(w.started).toEqual([]); // a search runs: nothing starts beside it
    const ended = Date.now();
    w.q.searchEnded('/r', 'ann'); // ann's own search warmed her partition
    await eventually(async () => w.started.length === 1, 'bob to be warmed', 5_000);
    expect(Date.now() - ended).toBeGreaterThanOrEqual(140);
    expect(w.started).toEqual(['/r:bob']);
    await w.endStep();
    await eventually(async () => w.q.remaining() === 0, 'the queue to empty', 5_000);
  });

  it('waits for a running step before the next; a search arriving in between holds the next back and drops its own user', async () => {
    const w = queue(100);
    w.q.add('/r', ['ann', 'bob', 'cy']);
    await eventually(async () => w.started.length === 1, 'ann to be warmed', 5_000);
    w.q.searchStarted('/r', 'bob'); // arrives while ann's step runs: bob's own search drops his step, holds back the next
    await w.endStep();
    await tick(250);
    expect(w.started).toEqual(['/r:ann']);
    w.q.searchEnded('/r', 'bob');
    await eventually(async () => w.started.length === 2, 'cy to be warmed', 5_000);
    expect(w.started).toEqual(['/r:ann', '/r:cy']);
    await w.endStep();
    expect(w.maxRunning()).toBe(1);
  });

  it("drops a closed root's steps, and stops", async () => {
    const w = queue(50);
    w.q.searchStarted('/c', 'dan');
    w.q.add('/a', ['ann']);
    w.q.add('/b', ['bob', 'cy']);
    w.q.drop('/a');
    expect(w.q.remaining()).toBe(2);
    w.q.stop();
    w.q.searchEnded('/b', 'bob');
    await tick(150);
    expect(w.started).toEqual([]);
    expect(w.q.remaining()).toBe(0);
  });
});

describe('users of a root', () => {
  it('are its first-level folders that are valid user ids, plus the extra owner, sorted and once each', async () => {
    const root = await tempRoot();
    roots.push(root);
    for (const d of ['bob', 'ann', '.mem', '.git', 'my notes']) await mkdir(join(root, d));
    await writeFile(join(root, 'carl'), 'a file, not a folder');
    expect(rootUsers(root, ['default', 'ann'])).toEqual(['ann', 'bob', 'default']);
    expect(rootUsers(join(root, 'missing'))).toEqual([]);
  });
});
