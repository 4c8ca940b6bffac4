// MILVUS_URI: memdir uses the given Milvus instead of starting its own (here a Milvus Lite server
// started by the test, which speaks the same gRPC API as a standalone or cluster).
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { milvusLiteSpec } from '../../src/adapters/runtime/local-servers.js';
import { ensureServer, stopServer } from '../../src/adapters/runtime/managed-server.js';
import { ensureRuntime } from '../../src/adapters/runtime/python-runtime.js';
import { loadConfig } from '../../src/config.js';
import { cleanEnv, runMem } from '../support/harness.js';
import { tempRoot } from '../support/temp-root.js';

describe('MILVUS_URI points memdir at an existing Milvus', () => {
  let serverDir: string;
  let root: string;
  let uri: string;

  beforeAll(async () => {
    serverDir = await tempRoot({}, 'memdir-it-server-');
    root = await tempRoot({ 'ann/semantic/pet.md': 'Ann has a grey cat called Miso.\n' }, 'memdir-it-remote-');
    const config = loadConfig(cleanEnv(), { root });
    const runtime = await ensureRuntime({ home: config.runtimeHome, python: config.python });
    const server = await ensureServer(milvusLiteSpec(runtime, join(serverDir, '.mem')));
    uri = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await runMem(['server', 'stop'], { root });
    await stopServer({ stateDir: join(serverDir, '.mem', 'servers'), name: 'milvus-lite', stopSignal: 'SIGINT' });
    await rm(root, { recursive: true, force: true });
    await rm(serverDir, { recursive: true, force: true });
  });

  it('indexes into that server under a collection named after the root, and starts no Milvus of its own', async () => {
    const env = { MILVUS_URI: uri };
    const re = await runMem(['reindex', '--json'], { root, env });
    expect(re.json).toMatchObject({ files: 1, errors: [] });
    const status = await runMem(['status', '--json'], { root, env });
    expect(status.json.index).toMatch(/^http:\/\/127\.0\.0\.1:\d+ \(collection memdir_[0-9a-f]{12}\)$/);
    expect(status.json.indexRows).toBe(1);
    expect(existsSync(join(root, '.mem', 'servers', 'milvus-lite.json'))).toBe(false);
    const res = await runMem(['search', 'what pet does Ann have', '--user', 'ann', '--json'], { root, env });
    expect(res.json.results[0].content).toContain('Miso');
  });
});
