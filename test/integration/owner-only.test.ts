// The embedded servers answer only their owner: a call without the per-start secret (or with a wrong one) is refused
// by Milvus Lite and by the embedding server alike; memdir's own calls carry it; it never shows outside its 0600 record.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { MilvusClient } from '@zilliz/milvus2-sdk-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openTestMemory, runMem, type TestMemory } from '../support/harness.js';
import { ownServerHome } from '../support/server-home.js';

interface Rec {
  pid: number;
  port: number;
  secret: string;
}

describe('owner-only embedded servers', () => {
  const home = ownServerHome();
  let t: TestMemory;
  let milvus: Rec;
  let embedder: Rec;
  const record = async (name: string) => JSON.parse(await readFile(join(home(), 'servers', `${name}.json`), 'utf8')) as Rec;

  beforeAll(async () => {
    t = await openTestMemory({ 'ann/semantic/tea.md': 'Ann drinks green tea every morning.\n' });
    await t.memory.reindex();
    [milvus, embedder] = [await record('milvus-lite'), await record('embedder')];
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  /** What a Milvus call answers with this token (none: as any other account on the machine would connect). */
  async function listWith(token?: string): Promise<string> {
    const client = new MilvusClient({
      address: `127.0.0.1:${milvus.port}`,
      ...(token !== undefined ? { token } : {}),
      maxRetries: 0,
      channelOptions: { 'grpc.keepalive_time_ms': 2147483647, 'grpc.keepalive_permit_without_calls': 0 },
    });
    // The SDK connects (a Connect call) in the background: refused too, which the call below reports.
    client.connectPromise.catch(() => undefined);
    try {
      const res = await client.listCollections();
      return res.status.error_code === 'Success' ? `ok: ${res.data.map((c) => c.name).join(',')}` : `refused: ${res.status.reason}`;
    } catch (err) {
      return `refused: ${String(err)}`;
    } finally {
      await client.closeConnection().catch(() => undefined);
    }
  }

  it('Milvus Lite refuses a client without the secret, or with a wrong one, and answers with it', async () => {
    expect(await listWith()).toMatch(/^refused: .*(owner|UNAUTHENTICATED|16)/);
    expect(await listWith('0'.repeat(64))).toMatch(/^refused: /);
    expect(await listWith(milvus.secret)).toMatch(/^ok: memdir_[0-9a-f]{16}$/);
  });

  it('the embedding server refuses a request without the secret, or with a wrong one, and answers with it', async () => {
    const embed = (auth?: string) =>
      fetch(`http://127.0.0.1:${embedder.port}/v1/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
        body: JSON.stringify({ model: 'e5-query', input: ['what does Ann drink'] }),
      });
    const none = await embed();
    expect(none.status).toBe(401);
    expect(await none.text()).toContain('owner');
    expect((await embed('Bearer local')).status).toBe(401);
    expect((await embed(`Bearer ${'f'.repeat(64)}`)).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${embedder.port}/health`)).status).toBe(401);
    const ok = await embed(`Bearer ${embedder.secret}`);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { data: { embedding: number[] }[] }).data[0]!.embedding).toHaveLength(384);
  });

  it("memdir's own calls carry it: a search works", async () => {
    const hits = await t.memory.search({ query: 'what does Ann drink in the morning', user: 'ann', k: 1, track: false });
    expect(hits[0]?.path).toBe('ann/semantic/tea.md');
  });

  it('the secret is only in its 0600 record inside a 0700 folder: not on a command line, not in status output', async () => {
    expect((await stat(join(home(), 'servers'))).mode & 0o777).toBe(0o700);
    for (const name of ['milvus-lite', 'embedder']) {
      expect((await stat(join(home(), 'servers', `${name}.json`))).mode & 0o777).toBe(0o600);
    }
    // The index data (the memories' text) is owner-only too.
    expect((await stat(join(home(), 'milvus'))).mode & 0o777).toBe(0o700);
    expect(milvus.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(embedder.secret).not.toBe(milvus.secret);
    for (const rec of [milvus, embedder]) expect(await readFile(`/proc/${rec.pid}/cmdline`, 'utf8')).not.toContain(rec.secret);
    const status = await runMem(['server', 'status', '--json'], { root: t.root });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(String(milvus.port));
    expect(status.stdout).not.toContain(milvus.secret);
    expect(status.stdout).not.toContain(embedder.secret);
  });
});
