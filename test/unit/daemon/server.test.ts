// Covers the search daemon on a real Unix socket with stand-in Memories: one daemon serving several roots (each
// opened once, searched in its own Memory, its users warmed between searches), malformed, oversized and ill-typed requests refused with a usage error
// before reaching a Memory, other settings declined, roots closed when released, idle or gone from disk and opened
// again when replaced on disk; the daemon exits once its own code is rebuilt.
import { statSync } from 'node:fs';
import { connect } from 'node:net';
import { rm, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { PROTOCOL_VERSION, configKey, socketPath, type DaemonTarget } from '../../../src/adapters/daemon/protocol.js';
import { runDaemon, type DaemonOptions } from '../../../src/daemon/server.js';
import { warmUpSearch } from '../../../src/daemon/warm-up.js';
import type { Memory } from '../../../src/services/facade.js';
import type { SearchInput } from '../../../src/services/search.js';
import { eventually } from '../../support/eventually.js';
import { searchResult } from '../../support/search-result.js';
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

async function startDaemon(options: Partial<DaemonOptions> = {}, warmA = false, hits?: (root: string) => unknown[]) {
  const home = await tempRoot();
  const rootA = await tempRoot();
  const rootB = await tempRoot();
  roots.push(home, rootA, rootB);
  const searched: { root: string; input: SearchInput }[] = [];
  const opened: string[] = [];
  const closed: string[] = [];
  const open = async (root: string) => {
    opened.push(root);
    return {
      search: async (input: SearchInput) => (searched.push({ root, input }), hits?.(root) ?? [{ id: `hit-in-${root === rootA ? 'a' : 'b'}` }]),
      close: async () => void closed.push(root),
    } as unknown as Memory;
  };
  const config = { root: rootA, socketDir: join(home, 'sockets'), serverHome: join(home, 'servers'), setting: 'a' };
  const running = runDaemon(open, config, {
    idleMs: 60_000,
    rootIdleMs: 60_000,
    onLog: () => {},
    ...(warmA ? { warm: [rootA, '/nonexistent-memdir-root', 'relative'] } : {}),
    ...options,
  });
  const ping = `${JSON.stringify({ version: PROTOCOL_VERSION, configKey: '', op: 'ping' })}\n`;
  await eventually(async () => (await send(config, ping)).ok === true, 'the daemon to listen', 10_000);
  const request = (op: string, root: string | undefined, input?: unknown, key = configKey(config)) =>
    `${JSON.stringify({ version: PROTOCOL_VERSION, configKey: key, op, ...(root ? { root } : {}), input })}\n`;
  const stop = async () => {
    await send(config, request('stop', undefined));
    await running;
  };
  return { rootA, rootB, config, ping, searched, opened, closed, running, request, stop };
}

describe('search daemon server', () => {
  it('serves two roots from one socket, each in its own Memory opened once, and stops on request', async () => {
    // No quiet moment for a warm-up here (the test after this one covers it).
    const log: string[] = [];
    const d = await startDaemon({ usersOf: () => ['ann', 'bob'], warmQuietMs: 60_000, onLog: (line) => log.push(line) });
    expect(await send(d.config, d.request('search', d.rootA, { query: 'tea', user: 'ann', k: 3 }))).toEqual({ ok: true, results: [{ id: 'hit-in-a' }] });
    expect(await send(d.config, d.request('search', d.rootB, { query: 'tea', user: 'bob' }))).toEqual({ ok: true, results: [{ id: 'hit-in-b' }] });
    expect(await send(d.config, d.request('search', d.rootA, { query: 'milk', user: 'ann' }))).toEqual({ ok: true, results: [{ id: 'hit-in-a' }] });
    // Searches are never held back by a warm-up: each root answers what was asked, in order.
    expect(d.searched).toEqual([
      { root: d.rootA, input: { query: 'tea', user: 'ann', k: 3 } },
      { root: d.rootB, input: { query: 'tea', user: 'bob' } },
      { root: d.rootA, input: { query: 'milk', user: 'ann' } },
    ]);
    expect(d.opened).toEqual([d.rootA, d.rootB]);
    // Each search's own time, in the log (the bench reads it: the daemon's share of `mem search`).
    const timed = (root: string) => log.filter((l) => l.startsWith(`search in ${root} (`) && / \(\d+ ms\)$/.test(l)).length;
    expect([timed(d.rootA), timed(d.rootB)]).toEqual([2, 1]);
    expect(await send(d.config, d.ping)).toMatchObject({ ok: true, pid: process.pid, roots: [d.rootA, d.rootB].sort(), serverHome: d.config.serverHome });
    // Only this OS user can reach it: the socket is 0600 in a 0700 folder.
    expect(statSync(socketPath(d.config)).mode & 0o777).toBe(0o600);
    expect(statSync(d.config.socketDir).mode & 0o777).toBe(0o700);
    expect(await send(d.config, d.ping)).toMatchObject({ warming: 2 }); // bob in A, ann in B: neither searched there yet
    await d.stop();
    expect(d.closed.sort()).toEqual([d.rootA, d.rootB].sort());
  });

  it('warms each other user of a root once searches pause, one at a time, and says when it is done', async () => {
    const d = await startDaemon({ usersOf: () => ['ann', 'bob', 'cy'], warmQuietMs: 50 });
    expect(await send(d.config, d.request('search', d.rootA, { query: 'tea', user: 'bob' }))).toEqual({ ok: true, results: [{ id: 'hit-in-a' }] });
    await eventually(async () => (await send(d.config, d.ping)).warming === 0, 'the warm-up to end', 10_000);
    // bob searched himself: only ann and cy are warmed, after his search, BM25 only (the lazy index), untracked.
    expect(d.searched).toEqual([
      { root: d.rootA, input: { query: 'tea', user: 'bob' } },
      { root: d.rootA, input: warmUpSearch('ann', false) },
      { root: d.rootA, input: warmUpSearch('cy', false) },
    ]);
    expect(warmUpSearch('ann', false)).toEqual({ query: 'memory', user: 'ann', k: 1, track: false, mode: 'bm25' });
    await d.stop();
  });

  it('releases one root and keeps serving the other; the released root opens again on its next search', async () => {
    const d = await startDaemon();
    await send(d.config, d.request('search', d.rootA, { query: 'tea' }));
    await send(d.config, d.request('search', d.rootB, { query: 'tea' }));
    expect(await send(d.config, d.request('release', d.rootA))).toEqual({ ok: true, pid: process.pid, released: true });
    expect(d.closed).toEqual([d.rootA]);
    expect(await send(d.config, d.request('release', d.rootA))).toMatchObject({ ok: true, released: false });
    expect(await send(d.config, d.ping)).toMatchObject({ roots: [d.rootB] });
    expect(await send(d.config, d.request('search', d.rootB, { query: 'tea' }))).toEqual({ ok: true, results: [{ id: 'hit-in-b' }] });
    expect(await send(d.config, d.request('search', d.rootA, { query: 'tea' }))).toEqual({ ok: true, results: [{ id: 'hit-in-a' }] });
    expect(d.opened).toEqual([d.rootA, d.rootB, d.rootA]);
    await d.stop();
  });

  it('closes a root unused for its idle time and one deleted from disk, and keeps running', async () => {
    const d = await startDaemon({ rootIdleMs: 300, checkMs: 50 });
    await send(d.config, d.request('search', d.rootA, { query: 'tea' }));
    await eventually(async () => d.closed.includes(d.rootA), 'the idle root to close', 10_000);
    await send(d.config, d.request('search', d.rootB, { query: 'tea' }));
    await rm(d.rootB, { recursive: true, force: true });
    await eventually(async () => d.closed.includes(d.rootB), 'the deleted root to close', 10_000);
    expect(await send(d.config, d.ping)).toMatchObject({ ok: true, roots: [] });
    // A search of a root that is not on disk is handed back to the client, which reports it as in-process.
    expect(await send(d.config, d.request('search', d.rootB, { query: 'tea' }))).toEqual({ ok: false, declined: true });
    await d.stop();
  });

  it('exits by itself once every root it served is gone from disk, without waiting for its idle time', async () => {
    const d = await startDaemon({ checkMs: 50, warmQuietMs: 60_000 });
    await send(d.config, d.request('search', d.rootA, { query: 'tea' }));
    await send(d.config, d.request('search', d.rootB, { query: 'tea' }));
    await rm(d.rootA, { recursive: true, force: true });
    // One root left on disk: still serving.
    await new Promise((r) => setTimeout(r, 300));
    expect(await send(d.config, d.ping)).toMatchObject({ ok: true });
    await rm(d.rootB, { recursive: true, force: true });
    await d.running;
    expect(d.closed).toEqual(expect.arrayContaining([d.rootA, d.rootB]));
  });

  it('exits by itself when the root it was started for is gone before it listened (it opened nothing)', async () => {
    const gone = await tempRoot();
    await rm(gone, { recursive: true, force: true });
    // Checked every 300 ms: the helper's ping answered first.
    const d = await startDaemon({ checkMs: 300, warmQuietMs: 60_000, warm: [gone] });
    await d.running;
    expect(d.opened).toEqual([]);
  });

  it('exits by itself once its code on disk is rebuilt, so the next search starts the new code (not the old one for 15 idle minutes)', async () => {
    const code = join(await tempRoot(), 'server.js');
    roots.push(dirname(code));
    await writeFile(code, '// the daemon as built\n');
    const log: string[] = [];
    const d = await startDaemon({ checkMs: 50, warmQuietMs: 60_000, codeFile: code, onLog: (line) => log.push(line) });
    expect(await send(d.config, d.request('search', d.rootA, { query: 'tea' }))).toEqual({ ok: true, results: [{ id: 'hit-in-a' }] });
    // Unchanged code: still serving after several checks.
    await new Promise((r) => setTimeout(r, 300));
    expect(await send(d.config, d.ping)).toMatchObject({ ok: true });
    // `npm run build` (or an upgrade) writes the file again.
    await utimes(code, new Date(), new Date(Date.now() + 5_000));
    await d.running;
    expect(d.closed).toEqual([d.rootA]);
    expect(log.join('\n')).toContain('its code changed on disk');
  });

  it('opens a root again when its identity on disk changed (.mem/ removed, or another folder put at its path): never the old index', async () => {
    const ids = new Map<string, string>();
    const d = await startDaemon({ warmQuietMs: 60_000, identityOf: (root) => ids.get(root) ?? '' });
    ids.set(d.rootA, 'first');
    await send(d.config, d.request('search', d.rootA, { query: 'tea' }));
    await send(d.config, d.request('search', d.rootA, { query: 'tea' }));
    // Same identity: opened once.
    expect(d.opened).toEqual([d.rootA]);
    expect(d.closed).toEqual([]);
    // A ping names the identity each root was opened with (`mem server status` marks that collection open, not others of the path).
    expect((await send(d.config, d.ping)).identities).toEqual({ [d.rootA]: 'first' });
    ids.set(d.rootA, 'second');
    expect((await send(d.config, d.ping)).identities).toEqual({ [d.rootA]: 'first' });
    expect(await send(d.config, d.request('search', d.rootA, { query: 'tea' }))).toEqual({ ok: true, results: [{ id: 'hit-in-a' }] });
    expect(d.closed).toEqual([d.rootA]);
    expect(d.opened).toEqual([d.rootA, d.rootA]);
    expect((await send(d.config, d.ping)).identities).toEqual({ [d.rootA]: 'second' });
    // The new opening is kept while the identity stays.
    await send(d.config, d.request('search', d.rootA, { query: 'tea' }));
    expect(d.opened).toEqual([d.rootA, d.rootA]);
    await d.stop();
  });

  it('opens the roots it is asked to warm as soon as it listens, the user who started it first', async () => {
    const d = await startDaemon({ warmUser: 'cy', usersOf: () => ['ann', 'cy'], warmQuietMs: 0 }, true);
    await eventually(async () => (await send(d.config, d.ping)).roots?.toString() === d.rootA, 'the warmed root to be open', 10_000);
    await eventually(async () => (await send(d.config, d.ping)).warming === 0, 'the warm-up to end', 10_000);
    // Only roots on disk, by absolute path, are opened; cy's warm-up is a full search (embedding and dense too).
    expect(d.opened).toEqual([d.rootA]);
    expect(d.searched).toEqual([
      { root: d.rootA, input: warmUpSearch('cy', true) },
      { root: d.rootA, input: warmUpSearch('ann', false) },
    ]);
    expect(warmUpSearch('cy', true)).toEqual({ query: 'memory', user: 'cy', k: 1, track: false });
    d.searched.length = 0;
    expect(await send(d.config, d.request('search', d.rootA, { query: 'tea' }))).toEqual({ ok: true, results: [{ id: 'hit-in-a' }] });
    expect(d.opened).toEqual([d.rootA]);
    expect(d.searched).toEqual([{ root: d.rootA, input: { query: 'tea' } }]);
    await d.stop();
  });

  it('exits by itself after its idle time, closing its roots', async () => {
    const d = await startDaemon({ idleMs: 500 });
    await send(d.config, d.request('search', d.rootA, { query: 'tea' }));
    // Pings (`mem server status`) are not work: they do not keep it up.
    let exited = false;
    void d.running.then(() => (exited = true));
    while (!exited) {
      await send(d.config, d.ping).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(d.closed).toEqual([d.rootA]);
  });

  it("renders a search's context block when asked (a prompt hook's), a secret in a memory masked, and searches as asked", async () => {
    const secret = 'sk-proj-aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY';
    const d = await startDaemon({}, false, () => [searchResult(`The shop deploys with pnpm; its registry token is ${secret}`)]);
    const context = { tokens: 500, about: 'Stored project memories.', attributes: { scope: 'project' } };
    const answer = await send(d.config, d.request('search', d.rootA, { query: 'deploy', user: 'ann', k: 5, context }));
    expect(answer).toMatchObject({ ok: true, results: [expect.objectContaining({ content: expect.stringContaining(secret) })] });
    const block = answer.context as string;
    expect(block).toMatch(/^<memories user="ann" scope="project">\nStored project memories\./);
    expect(block).toContain('The shop deploys with pnpm');
    expect(block).not.toContain(secret);
    expect(block).toContain('sk-pr…');
    // The search itself is the one asked for: the block's wishes are not search options.
    expect(d.searched).toEqual([{ root: d.rootA, input: { query: 'deploy', user: 'ann', k: 5 } }]);
    // Without context, no block: a plain `mem search` pays nothing for it.
    expect(await send(d.config, d.request('search', d.rootA, { query: 'deploy', user: 'ann' }))).not.toHaveProperty('context');
    await d.stop();
  });

  it('refuses malformed, ill-typed, rootless and oversized requests before they reach a Memory', async () => {
    const d = await startDaemon();
    const usage = { ok: false, error: { code: 'USAGE', message: expect.stringMatching(/^malformed|too long/), exitCode: 2 } };
    expect(await send(d.config, 'not json\n')).toEqual(usage);
    expect(await send(d.config, d.request('search', d.rootA, { query: 'tea', user: ['ann', 'bob'] }))).toEqual(usage);
    expect(await send(d.config, d.request('search', d.rootA, { query: 'tea', user: 'ann', filter: 'user != ""' }))).toEqual(usage);
    expect(await send(d.config, d.request('search', undefined, { query: 'tea', user: 'ann' }))).toEqual(usage);
    expect(await send(d.config, d.request('search', 'relative/root', { query: 'tea', user: 'ann' }))).toEqual(usage);
    expect(await send(d.config, 'x'.repeat(70 * 1024))).toEqual({ ok: false, error: { code: 'USAGE', message: 'daemon request too long', exitCode: 2 } });
    expect(d.searched).toEqual([]);
    expect(d.opened).toEqual([]);
    await d.stop();
  });

  it('declines a search from a client with other settings or another protocol version', async () => {
    const d = await startDaemon();
    expect(await send(d.config, d.request('search', d.rootA, { query: 'tea', user: 'ann' }, 'other-key'))).toEqual({ ok: false, declined: true });
    expect(await send(d.config, `${JSON.stringify({ version: PROTOCOL_VERSION + 1, configKey: 'x', op: 'search', extra: 1 })}\n`)).toEqual({
      ok: false,
      declined: true,
    });
    expect(d.searched).toEqual([]);
    await d.stop();
  });
});

describe('search daemon socket', () => {
  it('is one per configuration but the root: roots share it, other settings or another servers home get another', () => {
    const base = { root: '/a', socketDir: '/tmp/x', serverHome: '/h', setting: 'a' };
    expect(socketPath({ ...base, root: '/b' })).toBe(socketPath(base));
    expect(socketPath({ ...base, setting: 'b' } as DaemonTarget)).not.toBe(socketPath(base));
    expect(socketPath({ ...base, serverHome: '/other' })).not.toBe(socketPath(base));
  });
});
