// Covers the search daemon on a real Unix socket with a stand-in Memory: searches answered, malformed,
// oversized and ill-typed requests refused with a usage error before reaching the Memory, other settings declined.
import { connect } from 'node:net';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { PROTOCOL_VERSION, configKey, socketPath, type DaemonTarget } from '../../../src/daemon/protocol.js';
import { runDaemon } from '../../../src/daemon/server.js';
import type { Memory } from '../../../src/services/facade.js';
import type { SearchInput } from '../../../src/services/search.js';
import { eventually } from '../../support/eventually.js';
import { tempRoot } from '../../support/temp-root.js';

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

/** Sends raw text on the socket and returns the parsed answer. */
function send(target: DaemonTarget, text: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath(target));
    let data = '';
    socket.on('connect', () => socket.end(text));
    socket.on('data', (chunk) => (data += chunk.toString()));
    socket.on('end', () => resolve(JSON.parse(data) as Record<string, unknown>));
    socket.on('error', reject);
  });
}

async function startDaemon() {
  const root = await tempRoot();
  roots.push(root);
  const searched: SearchInput[] = [];
  const memory = { search: async (input: SearchInput) => (searched.push(input), [{ id: 'tea' }]) } as unknown as Memory;
  const config = { root, socketDir: join(root, 'sockets'), setting: 'a' };
  const running = runDaemon(memory, config, { idleMs: 60_000, onLog: () => {} });
  const ping = `${JSON.stringify({ version: PROTOCOL_VERSION, configKey: '', op: 'ping' })}\n`;
  await eventually(async () => (await send(config, ping)).ok === true, 'the daemon to listen', 10_000);
  const request = (op: string, input?: unknown, key = configKey(config)) => `${JSON.stringify({ version: PROTOCOL_VERSION, configKey: key, op, input })}\n`;
  return { root, config, searched, running, request };
}

describe('search daemon server', () => {
  it('answers a well-formed search with the Memory, and stops on request', async () => {
    const d = await startDaemon();
    expect(await send(d.config, d.request('search', { query: 'tea', user: 'ann', k: 3 }))).toEqual({ ok: true, results: [{ id: 'tea' }] });
    expect(d.searched).toEqual([{ query: 'tea', user: 'ann', k: 3 }]);
    expect(await send(d.config, d.request('stop'))).toMatchObject({ ok: true });
    await d.running;
  });

  it('refuses malformed, ill-typed and oversized requests before they reach the Memory', async () => {
    const d = await startDaemon();
    const usage = { ok: false, error: { code: 'USAGE', message: expect.stringMatching(/^malformed|too long/), exitCode: 2 } };
    expect(await send(d.config, 'not json\n')).toEqual(usage);
    expect(await send(d.config, d.request('search', { query: 'tea', user: ['ann', 'bob'] }))).toEqual(usage);
    expect(await send(d.config, d.request('search', { query: 'tea', user: 'ann', filter: 'user != ""' }))).toEqual(usage);
    expect(await send(d.config, 'x'.repeat(70 * 1024))).toEqual({ ok: false, error: { code: 'USAGE', message: 'daemon request too long', exitCode: 2 } });
    expect(d.searched).toEqual([]);
    await send(d.config, d.request('stop'));
    await d.running;
  });

  it('declines a search from a client with other settings or another protocol version', async () => {
    const d = await startDaemon();
    expect(await send(d.config, d.request('search', { query: 'tea', user: 'ann' }, 'other-key'))).toEqual({ ok: false, declined: true });
    expect(await send(d.config, `${JSON.stringify({ version: PROTOCOL_VERSION + 1, configKey: 'x', op: 'search', extra: 1 })}\n`)).toEqual({
      ok: false,
      declined: true,
    });
    expect(d.searched).toEqual([]);
    await send(d.config, d.request('stop'));
    await d.running;
  });
});
