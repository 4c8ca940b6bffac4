// Covers index calls on a real daemon socket, with stand-in Memories whose index is in memory: a client's small
// writes land in the index of the root the daemon serves (rows of any text, beyond a search request's size), and are
// declined, so that the client writes itself, for a root the daemon has not open, for another index of the same root
// (another server or collection), and under other settings; ill-typed arguments are usage errors.
import { connect } from 'node:net';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { DaemonIndex } from '../../../src/adapters/daemon/daemon-index.js';
import { PROTOCOL_VERSION, configKey, socketPath, type DaemonTarget } from '../../../src/adapters/daemon/protocol.js';
import { runDaemon } from '../../../src/daemon/server.js';
import type { Memory } from '../../../src/services/facade.js';
import type { IndexedChunk } from '../../../src/services/ports.js';
import { eventually } from '../../support/eventually.js';
import { InMemoryIndex } from '../../support/fakes.js';
import { indexedRow } from '../../support/hit-record.js';
import { tempRoot } from '../../support/temp-root.js';

const cleanup: string[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

function send(target: DaemonTarget, text: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath(target));
    const data: Buffer[] = [];
    socket.on('connect', () => socket.end(text));
    socket.on('data', (chunk: Buffer) => data.push(chunk));
    socket.on('end', () => resolve(JSON.parse(Buffer.concat(data).toString('utf8')) as Record<string, unknown>));
    socket.on('error', reject);
  });
}

const row = (i: number, content: string): IndexedChunk => indexedRow(i, { content });

async function startDaemon() {
  const home = await tempRoot();
  const rootA = await tempRoot();
  const rootB = await tempRoot();
  cleanup.push(home, rootA, rootB);
  // The daemon's index of each root (what openMemory's wrapIndex hands the CLI's daemon command).
  const served = new Map<string, InMemoryIndex>();
  const memories = new Map<object, InMemoryIndex>();
  const open = async (root: string) => {
    const index = new InMemoryIndex();
    served.set(root, index);
    const memory = { search: async () => [], close: async () => {} } as unknown as Memory;
    memories.set(memory, index);
    return memory;
  };
  const config = { root: rootA, socketDir: join(home, 'sockets'), serverHome: join(home, 'servers') };
  const logs: string[] = [];
  const running = runDaemon(open, config, { idleMs: 60_000, rootIdleMs: 60_000, onLog: (l) => logs.push(l), warm: [rootA], indexOf: (m) => memories.get(m) });
  const ping = `${JSON.stringify({ version: PROTOCOL_VERSION, configKey: '', op: 'ping' })}\n`;
  await eventually(async () => ((await send(config, ping)).roots as string[] | undefined)?.includes(rootA) === true, 'the daemon to open root A', 10_000);
  // Root A is opened in the background: index calls wait for nothing, so let it finish opening.
  await eventually(async () => served.has(rootA), 'root A opened', 10_000);
  await new Promise((r) => setTimeout(r, 50));
  const stop = async () => {
    await send(config, `${JSON.stringify({ version: PROTOCOL_VERSION, configKey: '', op: 'stop' })}\n`);
    await running;
  };
  return { config, rootA, rootB, served, logs, stop };
}

describe('index calls through the search daemon', () => {
  it("writes a served root's rows into the daemon's index of it, whatever their text and size, and answers reads", async () => {
    const d = await startDaemon();
    try {
      const own = new InMemoryIndex();
      const index = new DaemonIndex(own, { target: d.config });
      // Text in several scripts, over 64 KiB in all: split between socket reads, it must arrive intact.
      const long = '茶と珈琲 — ☕ café, чай; '.repeat(4_000);
      await index.open({ name: 'm', dimension: 3 });
      await index.insert([row(1, long), row(2, 'short')]);
      await index.deleteChunks(['c2']);
      await index.flush();
      const daemonIndex = d.served.get(d.rootA)!;
      expect([...daemonIndex.rows.keys()]).toEqual(['c1']);
      expect(daemonIndex.rows.get('c1')!.content).toBe(long);
      expect(daemonIndex.rows.get('c1')!.vector).toEqual([1, 0, 0]);
      expect(await index.count({ users: ['ann'] })).toBe(1);
      const hits = await index.search({ mode: 'dense', scope: { users: ['ann'] }, queryVector: [1, 0, 0], limit: 3 });
      expect(hits.map((h) => h.record.chunkId)).toEqual(['c1']);
      expect(own.rows.size).toBe(0);
      expect(index.throughDaemon).toBe(true);
      expect(d.logs.some((l) => l.startsWith(`index insert (2) for ${d.rootA} (`))).toBe(true);
    } finally {
      await d.stop();
    }
  });

  it('declines a root it has not open, another index of its root, and other settings: the client writes itself', async () => {
    const d = await startDaemon();
    try {
      const cases = [
        { target: { ...d.config, root: d.rootB }, location: undefined },
        { target: d.config, location: 'another server (collection other)' },
        { target: { ...d.config, setting: 'other' } as DaemonTarget, location: undefined },
      ];
      for (const c of cases) {
        const own = new InMemoryIndex();
        if (c.location) Object.defineProperty(own, 'location', { value: c.location });
        const index = new DaemonIndex(own, { target: c.target });
        await index.open({ name: 'm', dimension: 3 });
        await index.upsert([row(3, 'mine')]);
        expect([...own.rows.keys()]).toEqual(['c3']);
        expect(index.throughDaemon).toBe(false);
      }
      expect(d.served.get(d.rootA)!.rows.size).toBe(0);
      // A declined call never opened root B in the daemon.
      expect(d.served.has(d.rootB)).toBe(false);
    } finally {
      await d.stop();
    }
  });

  it('refuses ill-typed arguments and undecodable vectors with a usage error, before the index sees them', async () => {
    const d = await startDaemon();
    try {
      const call = (input: unknown) => `${JSON.stringify({ version: PROTOCOL_VERSION, configKey: configKey(d.config), op: 'index', root: d.rootA, input })}\n`;
      const location = new InMemoryIndex().location;
      const bad = [
        { location, method: 'drop', args: [] },
        { location, method: 'upsert', args: [[{ chunkId: 'x' }]] },
        { location, method: 'deleteChunks', args: ['not a list'] },
        { location, method: 'delete', args: [{ users: 'all', filter: 'chunk_id != ""' }] },
        { location, method: 'upsert', args: [[{ ...row(4, 'x'), vector: 'AAA=' }]] },
      ];
      for (const input of bad) {
        const answer = await send(d.config, call(input));
        expect(answer.ok, JSON.stringify(input)).toBe(false);
        expect((answer.error as { code: string }).code).toBe('USAGE');
      }
      expect(d.served.get(d.rootA)!.rows.size).toBe(0);
      // A search request is still held to its own bound.
      const search = `${JSON.stringify({ version: PROTOCOL_VERSION, configKey: configKey(d.config), op: 'search', root: d.rootA, input: { query: 'x'.repeat(70_000) } })}\n`;
      expect(((await send(d.config, search)).error as { message: string }).message).toMatch(/too long/);
    } finally {
      await d.stop();
    }
  });
});
