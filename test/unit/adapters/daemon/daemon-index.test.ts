// Covers the index through the daemon's choice with a fake transport and an in-memory own index: small calls go to
// the daemon (vectors as base64 float32), and the own index takes over, for good, at the first call too big, not
// answered, declined or failed (an insert the daemon may have made is then an upsert); scans and drops stay local.
import { describe, expect, it } from 'vitest';

import { DaemonIndex, type AskDaemon } from '../../../../src/adapters/daemon/daemon-index.js';
import { decodeVector, encodeVector, type DaemonResponse, type IndexCall } from '../../../../src/adapters/daemon/protocol.js';
import type { IndexedChunk } from '../../../../src/services/ports.js';
import { InMemoryIndex } from '../../../support/fakes.js';
import { indexedRow } from '../../../support/hit-record.js';

const target = { root: '/memories', socketDir: '/tmp/sockets', serverHome: '/tmp/servers' };

function row(i: number): IndexedChunk {
  return indexedRow(i, { memoryId: 'm1', path: 'ann/semantic/m1.md', vector: [0.1 * i, -0.25, 1 / 3] });
}

/** A transport that records every call and answers each with `answer` (a response, or null: no daemon). */
function fakeDaemon(answer: (call: IndexCall) => DaemonResponse | null) {
  const calls: IndexCall[] = [];
  const ask: AskDaemon = async (t, op, input) => {
    expect(t).toBe(target);
    expect(op).toBe('index');
    calls.push(input);
    return answer(input);
  };
  return { calls, ask };
}

describe('DaemonIndex', () => {
  it('sends small calls to the daemon, vectors as base64 of float32, and leaves its own index untouched', async () => {
    const own = new InMemoryIndex();
    const daemon = fakeDaemon((call) => ({ ok: true, results: call.method === 'count' ? 7 : null }));
    const index = new DaemonIndex(own, { target, ask: daemon.ask });
    await index.open({ name: 'm', dimension: 3 });
    await index.upsert([row(1), row(2)]);
    await index.deleteChunks(['c9']);
    await index.flush();
    expect(await index.count({ users: ['ann'] })).toBe(7);
    expect(daemon.calls.map((c) => c.method)).toEqual(['open', 'upsert', 'deleteChunks', 'flush', 'count']);
    expect(daemon.calls.every((c) => c.location === own.location)).toBe(true);
    const sent = (daemon.calls[1]!.args[0] as { vector: unknown }[])[0]!;
    expect(typeof sent.vector).toBe('string');
    expect(decodeVector(sent.vector as string)).toEqual(Array.from(Float32Array.from(row(1).vector)));
    expect(own.rows.size).toBe(0);
    expect(Object.values(own.calls).every((n) => n === 0)).toBe(true);
    expect(index.throughDaemon).toBe(true);
  });

  it('uses its own index for a call over the row limit, and for every call after it', async () => {
    const own = new InMemoryIndex();
    const daemon = fakeDaemon(() => ({ ok: true, results: null }));
    const index = new DaemonIndex(own, { target, ask: daemon.ask, maxRows: 2 });
    await index.open({ name: 'm', dimension: 3 });
    await index.insert([row(1), row(2), row(3)]);
    await index.deleteChunks(['c1']);
    await index.flush();
    expect(daemon.calls.map((c) => c.method)).toEqual(['open']);
    expect([...own.rows.keys()].sort()).toEqual(['c2', 'c3']);
    expect(own.calls.flush).toBe(1);
    expect(index.throughDaemon).toBe(false);
  });

  it('without a daemon (or declined, or failed) makes the call itself, an insert as an upsert, and stays with its own index', async () => {
    for (const answer of [null, { ok: false, error: { code: 'INTERNAL', message: 'x', exitCode: 1 } } as const]) {
      const own = new InMemoryIndex();
      // The daemon opens the index, then does not answer the insert.
      const daemon = fakeDaemon((call) => (call.method === 'open' ? { ok: true, results: null } : answer));
      const index = new DaemonIndex(own, { target, ask: daemon.ask });
      await index.open({ name: 'm', dimension: 3 });
      await index.insert([row(1)]);
      await index.flush();
      expect(daemon.calls.map((c) => c.method)).toEqual(['open', 'insert']);
      expect(own.calls.insert).toBe(0);
      expect(own.calls.upsert).toBe(1);
      expect(own.calls.flush).toBe(1);
      expect([...own.rows.keys()]).toEqual(['c1']);
    }
    // No daemon from the first call: the own index makes every call as asked.
    const own = new InMemoryIndex();
    const index = new DaemonIndex(own, { target, ask: fakeDaemon(() => null).ask });
    await index.open({ name: 'm', dimension: 3 });
    await index.insert([row(1)]);
    expect([own.calls.open, own.calls.insert, own.calls.upsert]).toEqual([1, 1, 0]);
  });

  it('answers searches through the daemon with the query vector encoded, and keeps scans, drops and compactions local', async () => {
    const own = new InMemoryIndex();
    const hit = { record: { ...row(1), vector: undefined }, score: 0.9 };
    const daemon = fakeDaemon((call) => ({ ok: true, results: call.method === 'search' ? [hit] : null }));
    const index = new DaemonIndex(own, { target, ask: daemon.ask });
    const hits = await index.search({ mode: 'dense', scope: { users: ['ann'] }, queryVector: [0.5, 0.25, 1], limit: 3 });
    expect(hits).toEqual([hit]);
    expect((daemon.calls[0]!.args[0] as { queryVector: string }).queryVector).toBe(encodeVector([0.5, 0.25, 1]));
    await index.listChunks();
    expect(own.calls.listChunks).toBe(1);
    await index.search({ mode: 'bm25', scope: { users: ['ann'] }, queryText: 'tea', limit: 3 });
    expect(daemon.calls).toHaveLength(1);
    expect(own.calls.search).toBe(1);
  });
});

describe('vector encoding', () => {
  it('round-trips float32 values and refuses what is not base64 of whole float32s', () => {
    const v = [0, -1.5, 3.25, 1e-7, Number.MAX_VALUE];
    expect(decodeVector(encodeVector(v))).toEqual(Array.from(Float32Array.from(v)));
    expect(encodeVector(new Array(384).fill(0.5)).length).toBe(2048);
    expect(decodeVector('AAA=')).toBeNull(); // 2 bytes
    expect(decodeVector('not base64!')).toBeNull();
    expect(decodeVector('')).toEqual([]);
  });
});
