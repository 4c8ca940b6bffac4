// The Milvus the contract suite runs against: the one named by MILVUS_URI (npm run test:milvus), or a
// Milvus Lite server the suite starts itself (npm test), reached exactly as a remote one (URI + token).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

import { MilvusClient } from '@zilliz/milvus2-sdk-node';

import { milvusLiteSpec } from '../../src/adapters/runtime/local-servers.js';
import { ensureServer, stopServer } from '../../src/adapters/runtime/managed-server.js';
import { ensureRuntime } from '../../src/adapters/runtime/python-runtime.js';
import { loadConfig } from '../../src/config.js';
import { serverLayout } from '../../src/memory/layout.js';
import { cleanEnv } from './harness.js';
import { tempRoot } from './temp-root.js';

export interface MilvusTarget {
  /** What the test names say it is. */
  label: string;
  uri: string;
  token?: string;
  /** Stops what the suite started (nothing for a given MILVUS_URI). */
  stop(): Promise<void>;
}

/** The vitest project `milvus` sets this: its target is MILVUS_URI, and without one it skips. */
export const WANTS_GIVEN_MILVUS = process.env.MEM_TEST_MILVUS === 'given';
/** Read before any test strips MILVUS_* from the environment of the processes it runs. */
const GIVEN_URI = process.env.MILVUS_URI;
const GIVEN_TOKEN = process.env.MILVUS_TOKEN;

export const SKIP_REASON =
  WANTS_GIVEN_MILVUS && !GIVEN_URI ? 'skipped: MILVUS_URI is not set (e.g. MILVUS_URI=http://localhost:19530 npm run test:milvus)' : undefined;

export async function startMilvusTarget(): Promise<MilvusTarget> {
  if (WANTS_GIVEN_MILVUS) {
    if (!GIVEN_URI) throw new Error(SKIP_REASON);
    return { label: `MILVUS_URI ${GIVEN_URI}`, uri: GIVEN_URI, ...(GIVEN_TOKEN ? { token: GIVEN_TOKEN } : {}), stop: async () => undefined };
  }
  const serverDir = await tempRoot({}, 'memdir-it-milvus-');
  const config = loadConfig(cleanEnv(), { root: serverDir });
  const runtime = await ensureRuntime({ home: config.runtimeHome, python: config.python });
  const server = await ensureServer(milvusLiteSpec(runtime, serverLayout(join(serverDir, '.mem')), 0));
  return {
    label: 'a Milvus Lite server started by the suite',
    uri: `http://127.0.0.1:${server.port}`,
    // The server answers only with its secret, as a secured standalone or Zilliz Cloud needs MILVUS_TOKEN.
    token: server.secret,
    stop: async () => {
      await stopServer({ stateDir: join(serverDir, '.mem', 'servers'), name: 'milvus-lite', stopSignal: 'SIGINT' });
    },
  };
}

/** A collection name no other run uses, so the suite can run against a shared cluster. */
export function uniqueCollection(purpose: string): string {
  return `memdir_test_${purpose}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

/** Whether the collection exists, asked of the server directly (not through memdir). */
/** A client of the target; no keepalive pings, which Python gRPC servers (Milvus Lite) answer by dropping the connection. */
function clientOf(target: MilvusTarget): MilvusClient {
  return new MilvusClient({
    address: target.uri,
    ...(target.token ? { token: target.token } : {}),
    channelOptions: { 'grpc.keepalive_time_ms': 2147483647, 'grpc.keepalive_permit_without_calls': 0 },
  });
}

export async function collectionExists(target: MilvusTarget, collection: string): Promise<boolean> {
  const client = clientOf(target);
  try {
    const res = await client.hasCollection({ collection_name: collection });
    return Boolean(res.value);
  } finally {
    await client.closeConnection().catch(() => undefined);
  }
}

/** Drops the collection if it is there (clean-up after the suite, even after a failed test). */
export async function dropCollection(target: MilvusTarget, collection: string): Promise<void> {
  const client = clientOf(target);
  try {
    const res = await client.hasCollection({ collection_name: collection });
    if (res.value) await client.dropCollection({ collection_name: collection });
  } finally {
    await client.closeConnection().catch(() => undefined);
  }
}
