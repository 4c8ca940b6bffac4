// Finding the shared Milvus Lite must not trust a port or a pid alone: after a server exits, another program may hold
// its port and another process its pid; and a server that is stopping by itself must not be handed to a newcomer.
import { spawn, type ChildProcess } from 'node:child_process';
import { watch } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import writeFileAtomic from 'write-file-atomic';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { grpcAnswers } from '../../src/adapters/runtime/grpc-probe.js';
import { milvusLiteSpec } from '../../src/adapters/runtime/local-servers.js';
import { ensureServer, isAlive, stopServer, type ServerRecord } from '../../src/adapters/runtime/managed-server.js';
import { stoppingMarker } from '../../src/adapters/runtime/owner-only.js';
import { processStartTime } from '../../src/adapters/runtime/process-identity.js';
import { ensureRuntime, type Runtime } from '../../src/adapters/runtime/python-runtime.js';
import { registerRoot } from '../../src/adapters/runtime/root-registry.js';
import { loadConfig } from '../../src/config.js';
import { serverLayout } from '../../src/memory/layout.js';
import { cleanEnv } from '../support/harness.js';
import { tempRoot } from '../support/temp-root.js';

describe('the shared Milvus Lite is the one recorded, and answers', () => {
  let runtime: Runtime;
  let http: Server;
  let sleeper: ChildProcess;
  const homes: string[] = [];
  const newHome = async () => {
    const home = await tempRoot({}, 'memdir-server-home-');
    homes.push(home);
    return home;
  };

  beforeAll(async () => {
    const config = loadConfig(cleanEnv(), { root: await tempRoot() });
    runtime = await ensureRuntime({ home: config.runtimeHome, python: config.python });
    http = createServer((_req, res) => res.end('an HTTP/1 server'));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    sleeper = spawn('sleep', ['600']);
  });
  afterAll(async () => {
    sleeper?.kill();
    await new Promise((resolve) => http?.close(resolve));
    for (const home of homes) await stopServer({ stateDir: serverLayout(home).servers, name: 'milvus-lite', stopSignal: 'SIGINT' });
  });

  it('the probe tells memdir’s server (with its secret) from the same server without it and from an HTTP/1 server', async () => {
    const home = await newHome();
    const rec = await ensureServer(milvusLiteSpec(runtime, serverLayout(home), 0));
    expect(await grpcAnswers(rec.port, rec.secret)).toBe(true);
    expect(await grpcAnswers(rec.port, 'another secret')).toBe(false);
    expect(await grpcAnswers((http.address() as AddressInfo).port, rec.secret)).toBe(false);
  });

  it('a stale record (its port taken by an HTTP/1 server, its pid by another process) gets a new server; that process is not killed', async () => {
    const home = await newHome();
    const layout = serverLayout(home);
    await mkdir(layout.servers, { recursive: true, mode: 0o700 });
    const stale: ServerRecord = {
      pid: sleeper.pid!,
      port: (http.address() as AddressInfo).port,
      secret: 'the old secret',
      startedAt: new Date(0).toISOString(),
      procStart: '1', // the server that wrote the record started at another time than the process that has its pid now
    };
    await writeFile(join(layout.servers, 'milvus-lite.json'), JSON.stringify(stale), { mode: 0o600 });
    const rec = await ensureServer(milvusLiteSpec(runtime, layout, 0));
    expect(rec.pid).not.toBe(sleeper.pid);
    expect(rec.procStart).toBe(processStartTime(rec.pid));
    expect(await grpcAnswers(rec.port, rec.secret)).toBe(true);
    expect(isAlive(sleeper.pid!)).toBe(true);
  });

  it('a server that has decided to stop is not handed out: the newcomer waits for it to exit and starts another', async () => {
    const home = await newHome();
    const layout = serverLayout(home);
    // One root in use, so the server starts and serves.
    const stateDir = join(home, 'root', '.mem');
    await mkdir(stateDir, { recursive: true });
    await writeFile(join(stateDir, 'root-id'), '0123456789abcdef\n');
    await registerRoot(layout, { collection: 'memdir_0123456789abcdef', root: join(home, 'root'), stateDir });
    const spec = milvusLiteSpec(runtime, layout, 0);
    const first = await ensureServer(spec);
    // The moment the server writes its marker (it found no root in use: the root's id is gone), a newcomer arrives.
    const newcomer = new Promise<ServerRecord>((resolve) => {
      const watcher = watch(layout.servers, (_event, name) => {
        if (name !== stoppingMarker(first.pid)) return;
        watcher.close();
        resolve(ensureServer(spec));
      });
    });
    await writeFileAtomic(join(stateDir, 'root-id'), 'fedcba9876543210\n');
    const second = await newcomer;
    expect(second.pid).not.toBe(first.pid);
    expect(isAlive(first.pid)).toBe(false);
    expect(await grpcAnswers(second.port, second.secret)).toBe(true);
  });
});
