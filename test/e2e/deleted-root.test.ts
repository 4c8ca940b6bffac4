// A root deleted (rm -rf) while the shared runtime knows it: its collection, which holds every memory's text, is
// dropped by `mem server prune` and by the next start of the servers, and the bytes leave the Milvus Lite data (a
// grep of the data folder); no long-lived process (the search daemon, `mem mcp`) writes the deleted root back.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { serverLayout } from '../../src/memory/layout.js';
import { daemonLog } from '../support/daemon-ready.js';
import { eventually } from '../support/eventually.js';
import { MEM_BIN, cleanEnv, runMem } from '../support/harness.js';
import { ownServerHome } from '../support/server-home.js';
import { tempRoot } from '../support/temp-root.js';

const DAEMON = { MEM_DAEMON: 'on' };

/** The collections of the home's Milvus Lite data whose files hold `word` (every byte of their folders read). */
async function collectionsHolding(home: string, word: string): Promise<string[]> {
  const base = join(serverLayout(home).milvusData, 'collections');
  const found = new Set<string>();
  for (const collection of await readdir(base).catch(() => [] as string[])) {
    for (const file of await readdir(join(base, collection), { recursive: true }).catch(() => [] as string[])) {
      const bytes = await readFile(join(base, collection, file)).catch(() => null);
      if (bytes?.includes(word)) found.add(collection);
    }
  }
  return [...found].sort();
}

const collectionOf = async (root: string) => `memdir_${(await readFile(join(root, '.mem', 'root-id'), 'utf8')).trim()}`;

async function status(root: string): Promise<{ roots: { root: string; collection: string; state: string }[]; daemon: { running: boolean; roots?: string[] } }> {
  const run = await runMem(['server', 'status', '--json'], { root });
  expect(run.code).toBe(0);
  return run.json;
}

/** A root with memories of four users (the daemon warms each up after a search), one holding `word`. */
async function rootWith(word: string, prefix: string): Promise<string> {
  const root = await tempRoot({}, prefix);
  for (const user of ['ann', 'bob', 'cid', 'dan']) {
    const text = user === 'ann' ? `Ann hides the ${word} key under the blue flowerpot` : `${user} waters the garden on Sundays`;
    expect((await runMem(['add', text, '--user', user, '--json'], { root })).code).toBe(0);
  }
  return root;
}

describe('a root deleted under the shared runtime', () => {
  const home = ownServerHome();
  let keeper: string;

  beforeAll(async () => {
    // A root that stays, to run the commands from.
    keeper = await tempRoot({}, 'memdir-e2e-keeper-');
    expect((await runMem(['add', 'Kim likes green tea', '--user', 'kim', '--json'], { root: keeper })).code).toBe(0);
  });
  afterAll(async () => {
    await runMem(['server', 'stop', '--all'], { root: keeper });
    await rm(keeper, { recursive: true, force: true });
  });

  it('`mem server prune` drops its collection, and its text leaves the Milvus Lite data', { timeout: 240_000 }, async () => {
    const word = 'quarzelbrook';
    const root = await rootWith(word, 'memdir-e2e-pruned-');
    const collection = await collectionOf(root);
    expect((await runMem(['search', `${word} key`, '--user', 'ann', '--json'], { root })).json.results.length).toBeGreaterThan(0);
    expect(await collectionsHolding(home(), word)).toEqual([collection]);
    await rm(root, { recursive: true, force: true });
    expect((await status(keeper)).roots.find((r) => r.collection === collection)?.state).toBe('orphan');

    const prune = await runMem(['server', 'prune', '--json'], { root: keeper });
    expect(prune.code).toBe(0);
    expect(prune.json.dropped).toEqual([{ root, collection }]);
    expect((await status(keeper)).roots.map((r) => r.collection)).not.toContain(collection);
    expect(await collectionsHolding(home(), word)).toEqual([]);
    // The root stays deleted, and a second prune has nothing left to drop.
    expect(existsSync(root)).toBe(false);
    expect((await runMem(['server', 'prune', '--json'], { root: keeper })).json.dropped).toEqual([]);
  });

  it('the next start of the servers drops it by itself', { timeout: 240_000 }, async () => {
    const word = 'vintrelmoss';
    const root = await rootWith(word, 'memdir-e2e-restarted-');
    const collection = await collectionOf(root);
    expect(await collectionsHolding(home(), word)).toEqual([collection]);
    await rm(root, { recursive: true, force: true });
    expect((await runMem(['server', 'stop', '--all'], { root: keeper })).code).toBe(0);

    // Any command that starts the servers again.
    expect((await runMem(['search', 'green tea', '--user', 'kim', '--json'], { root: keeper })).code).toBe(0);
    expect((await status(keeper)).roots.map((r) => r.collection)).not.toContain(collection);
    expect(await collectionsHolding(home(), word)).toEqual([]);
    expect(existsSync(root)).toBe(false);
  });

  it('the search daemon does not write a root deleted as it opens it back to disk, nor serve it', { timeout: 360_000 }, async () => {
    const word = 'glimmerfoss';
    const root = await rootWith(word, 'memdir-e2e-daemon-gone-');
    const collection = await collectionOf(root);
    expect((await runMem(['search', `${word} key`, '--user', 'ann', '--json'], { root, env: DAEMON })).code).toBe(0);
    // The root goes while the daemon opens it (and then warms its users up).
    const log = daemonLog(root, DAEMON);
    await eventually(async () => (await readFile(log, 'utf8').catch(() => '')).includes(`opening ${root}`), 'the daemon to open the root', 240_000, 20);
    // Retried as a person would: a file the opening writes at that very moment can make one pass find a folder not empty.
    await rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    // Its warm-ups, its root check (every 10 s) and its clean-up have run by then.
    await new Promise((resolve) => setTimeout(resolve, 25_000));
    // What a root that came back holds names what wrote it.
    const back = existsSync(root) ? await readdir(root, { recursive: true }) : null;
    expect(back, 'the deleted root is back on disk, holding these files').toBeNull();
    const after = await runMem(['server', 'status', '--json'], { root: keeper, env: DAEMON });
    expect(after.json.daemon.roots ?? []).not.toContain(root);
    // The daemon's own check dropped the deleted root's collection too.
    expect(after.json.roots.map((r: { collection: string }) => r.collection)).not.toContain(collection);
    expect(await collectionsHolding(home(), word)).toEqual([]);
  });

  it('`mem mcp` stops with a clear error when its root is deleted, and does not create it again', { timeout: 240_000 }, async () => {
    const root = await tempRoot({}, 'memdir-e2e-mcp-gone-');
    const child = spawn(process.execPath, [MEM_BIN, '--root', root, 'mcp', '--user', 'ann'], { env: cleanEnv() });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    type Reply = { id?: number; result?: { isError?: boolean; content: { text: string }[] } };
    const replies = new Map<number, (reply: Reply) => void>();
    createInterface({ input: child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as Reply;
      if (message.id !== undefined) replies.get(message.id)?.(message);
    });
    let id = 0;
    const send = (method: string, params: unknown) =>
      new Promise<Reply>((resolve) => {
        replies.set(++id, resolve);
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    try {
      await send('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'memdir-test', version: '1' } });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      const added = await send('tools/call', { name: 'memory_add', arguments: { text: 'Ann parks her bicycle by the north gate' } });
      expect(added.result?.isError).toBeFalsy();
      await rm(root, { recursive: true, force: true });

      void send('tools/call', { name: 'memory_add', arguments: { text: 'Ann waters the ferns on Mondays' } });
      const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 60_000))]);
      expect(code).toBe(1);
      expect(stderr).toMatch(/memory root .* is gone/);
      expect(existsSync(root)).toBe(false);
    } finally {
      child.kill('SIGKILL');
      await rm(root, { recursive: true, force: true });
    }
  });
});
