// Covers the worker-thread index's choices with a fake thread that runs calls on an in-memory index: after start,
// calls go to the thread in order (the open first, on its own), errors keep their class, big calls and scans move
// every later call to the own index once the thread's calls are answered (opened first), and a thread that stops
// has its unanswered calls made by the own index (an insert as an upsert). Without start it is the own index. A thread
// silent past the deadline, or one whose server went away while another runs at the recorded address, never holds a
// call for good: the own index makes the calls on the current server, or they fail with a clear error.
import { describe, expect, it } from 'vitest';

import { WorkerIndex, type IndexThread } from '../../../../src/adapters/milvus/worker-index.js';
import type { WorkerReply, WorkerRequest } from '../../../../src/adapters/milvus/worker-protocol.js';
import { IndexUnavailableError, ModelMismatchError } from '../../../../src/errors.js';
import type { IndexedChunk } from '../../../../src/services/ports.js';
import { InMemoryIndex } from '../../../support/fakes.js';
import { indexedRow } from '../../../support/hit-record.js';

const model = { name: 'm', dimension: 3 };

function row(i: number): IndexedChunk {
  return indexedRow(i, { memoryId: 'm1', path: 'ann/semantic/m1.md', vector: [0.1 * i, -0.25, 1 / 3] });
}

/** A thread whose calls run on `inside`; `stall` keeps replies back until `release`, `die` stops it. */
function fakeThread(inside = new InMemoryIndex()) {
  const sent: WorkerRequest[] = [];
  const held: boolean[] = [];
  let reply: (r: WorkerReply) => void = () => undefined;
  let exit: () => void = () => undefined;
  let stalled: (() => void)[] | null = null;
  let terminated = false;
  let fail: Error | null = null;
  const thread: IndexThread = {
    post: (request) => {
      sent.push(request);
      const run = async () => {
        try {
          const method = inside[request.method] as (...args: unknown[]) => Promise<unknown>;
          if (fail) throw fail;
          reply({ id: request.id, ok: true, result: await method.apply(inside, request.args) });
        } catch (err) {
          const e = err as Error;
          const kind = err instanceof ModelMismatchError ? 'model' : err instanceof IndexUnavailableError ? 'unavailable' : 'other';
          reply({ id: request.id, ok: false, error: { name: e.name, kind, message: e.message } });
        }
      };
      if (stalled) stalled.push(() => void run());
      else setTimeout(() => void run(), 1);
    },
    onReply: (listener) => (reply = listener),
    onExit: (listener) => (exit = listener),
    hold: (h) => held.push(h),
    terminate: async () => {
      terminated = true;
    },
  };
  return {
    thread,
    inside,
    sent,
    held,
    get terminated() {
      return terminated;
    },
    stall: () => (stalled = []),
    release: () => {
      const runs = stalled ?? [];
      stalled = null;
      for (const r of runs) r();
    },
    failWith: (err: Error) => (fail = err),
    die: () => {
      stalled = null;
      exit();
    },
  };
}

describe('WorkerIndex', () => {
  it('without start makes every call on the own index', async () => {
    const own = new InMemoryIndex();
    const fake = fakeThread();
    const index = new WorkerIndex(own, { start: () => fake.thread });
    await index.open(model);
    await index.upsert([row(1)]);
    expect(fake.sent).toEqual([]);
    expect([...own.rows.keys()]).toEqual(['c1']);
    expect(index.throughWorker).toBe(false);
  });

  it('after start opens the index in the thread at once and sends the sync calls there, in order', async () => {
    const own = new InMemoryIndex();
    const fake = fakeThread();
    const index = new WorkerIndex(own, { start: () => fake.thread });
    index.start(model);
    expect(fake.sent.map((r) => r.method)).toEqual(['open']);
    await index.open(model);
    await index.upsert([row(1), row(2)]);
    await index.deleteChunks(['c1']);
    await index.flush();
    expect(await index.count({ users: 'all' })).toBe(1);
    expect(fake.sent.map((r) => r.method)).toEqual(['open', 'open', 'upsert', 'deleteChunks', 'flush', 'count']);
    expect([...fake.inside.rows.keys()]).toEqual(['c2']);
    expect(Object.values(own.calls).every((n) => n === 0)).toBe(true);
    // The thread holds the process only while a call waits for it.
    expect(fake.held.at(-1)).toBe(false);
    await index.close();
    expect(fake.terminated).toBe(true);
  });

  it("throws the thread's index errors as the same classes", async () => {
    const fake = fakeThread();
    const index = new WorkerIndex(new InMemoryIndex(), { start: () => fake.thread });
    index.start(model);
    fake.failWith(new ModelMismatchError('built with another model'));
    await expect(index.open(model)).rejects.toBeInstanceOf(ModelMismatchError);
    fake.failWith(new IndexUnavailableError('server gone'));
    await expect(index.flush()).rejects.toThrow(/server gone/);
    await expect(index.flush()).rejects.toBeInstanceOf(IndexUnavailableError);
  });

  it('moves to the own index at a call over the row limit, after the thread answered, opened first, for good', async () => {
    const own = new InMemoryIndex();
    const fake = fakeThread();
    const index = new WorkerIndex(own, { start: () => fake.thread, maxRows: 2 });
    index.start(model);
    await index.open(model);
    fake.stall();
    const small = index.upsert([row(1)]);
    const big = index.insert([row(2), row(3), row(4)]);
    // The big call waits for the small one's answer.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(own.calls.insert).toBe(0);
    fake.release();
    await Promise.all([small, big]);
    await index.flush();
    expect([...fake.inside.rows.keys()]).toEqual(['c1']);
    expect([...own.rows.keys()].sort()).toEqual(['c2', 'c3', 'c4']);
    expect(own.calls.open).toBe(1);
    expect(own.calls.flush).toBe(1);
    expect(fake.terminated).toBe(true);
    expect(index.throughWorker).toBe(false);
  });

  it('scans every row and drops on the own index', async () => {
    const own = new InMemoryIndex();
    const fake = fakeThread();
    const index = new WorkerIndex(own, { start: () => fake.thread });
    index.start(model);
    await index.listPaths();
    expect(own.calls.listPaths).toBe(1);
    expect(fake.sent.map((r) => r.method)).toEqual(['open']);
  });

  it("makes a stopped thread's unanswered calls on the own index, an insert as an upsert, in order", async () => {
    const own = new InMemoryIndex();
    const fake = fakeThread();
    const index = new WorkerIndex(own, { start: () => fake.thread });
    index.start(model);
    await index.open(model);
    fake.stall();
    const insert = index.insert([row(1)]);
    const remove = index.deleteChunks(['c1']);
    fake.die();
    await Promise.all([insert, remove]);
    expect(own.calls.insert).toBe(0);
    expect(own.calls.upsert).toBe(1);
    expect(own.calls.deleteChunks).toBe(1);
    expect(own.rows.size).toBe(0);
    // Opened as the thread's index was, before the calls it did not answer.
    expect(own.calls.open).toBe(1);
    await index.flush();
    expect(own.calls.flush).toBe(1);
  });

  it('is the own index when the thread cannot start', async () => {
    const own = new InMemoryIndex();
    const index = new WorkerIndex(own, { start: () => null });
    index.start(model);
    await index.upsert([row(1)]);
    expect([...own.rows.keys()]).toEqual(['c1']);
  });

  it('fails the calls of a thread silent past the deadline with a clear error, and ends the thread', async () => {
    const fake = fakeThread();
    const index = new WorkerIndex(new InMemoryIndex(), { start: () => fake.thread, deadlineMs: 50 });
    index.start(model);
    fake.stall();
    const flushed = index.flush().then(
      () => 'answered',
      (err: unknown) => err,
    );
    const outcome = await Promise.race([flushed, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 2_000))]);
    expect(outcome).toBeInstanceOf(IndexUnavailableError);
    expect(String(outcome)).toMatch(/did not answer within/);
    expect(fake.terminated).toBe(true);
  });

  it('makes the calls of a silent thread on the own index when the server now runs at another address', async () => {
    const own = new InMemoryIndex();
    const fake = fakeThread();
    let reconnects = 0;
    const index = new WorkerIndex(own, { start: () => fake.thread, deadlineMs: 50, reconnect: async () => ++reconnects > 0 });
    index.start(model);
    fake.stall();
    const upserted = index.upsert([row(1)]);
    await Promise.race([upserted, new Promise((_, reject) => setTimeout(() => reject(new Error('still waiting')), 2_000))]);
    expect(reconnects).toBe(1);
    expect([...own.rows.keys()]).toEqual(['c1']);
    expect(own.calls.open).toBe(1);
    expect(fake.terminated).toBe(true);
  });

  it('reconnects when a call finds the server gone and another runs at the recorded address; otherwise keeps the error', async () => {
    const own = new InMemoryIndex();
    const fake = fakeThread();
    let restarted = false;
    const index = new WorkerIndex(own, { start: () => fake.thread, reconnect: async () => restarted });
    index.start(model);
    await index.open(model);
    fake.failWith(new IndexUnavailableError('server gone'));
    await expect(index.flush()).rejects.toBeInstanceOf(IndexUnavailableError);
    expect(own.calls.flush).toBe(0);
    restarted = true;
    await index.upsert([row(1)]);
    expect([...own.rows.keys()]).toEqual(['c1']);
    expect(own.calls.open).toBe(1);
    expect(fake.terminated).toBe(true);
    expect(index.throughWorker).toBe(false);
  });
});
