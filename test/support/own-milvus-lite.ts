// A Milvus Lite of a test file's own, in a temp root (for adapter tests that create and drop collections), with the
// address and secret a MilvusIndex needs; stop() ends it. The suite's shared servers are left alone.
import { ensureServer, stopServer } from '../../src/adapters/runtime/managed-server.js';
import { milvusLiteSpec } from '../../src/adapters/runtime/local-servers.js';
import { ensureRuntime } from '../../src/adapters/runtime/python-runtime.js';
import { loadConfig } from '../../src/config.js';
import { serverLayout } from '../../src/memory/layout.js';
import { cleanEnv } from './harness.js';
import { tempRoot } from './temp-root.js';

export interface OwnMilvusLite {
  address: string;
  token: string;
  stop(): Promise<void>;
}

export async function startOwnMilvusLite(): Promise<OwnMilvusLite> {
  const root = await tempRoot({}, 'memdir-it-');
  const stateDir = `${root}/.mem`;
  const config = loadConfig(cleanEnv(), { root });
  const runtime = await ensureRuntime({ home: config.runtimeHome, python: config.python });
  const server = await ensureServer(milvusLiteSpec(runtime, serverLayout(stateDir), 0));
  return {
    address: `127.0.0.1:${server.port}`,
    token: server.secret,
    stop: async () => void (await stopServer({ stateDir: `${stateDir}/servers`, name: 'milvus-lite', stopSignal: 'SIGINT' })),
  };
}
