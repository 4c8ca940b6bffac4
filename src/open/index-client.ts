// Opens a root's index: Milvus reached lazily (loaded on first use), through a worker thread for a command that
// will write, and through the running search daemon of this configuration for small calls.
import { join } from 'node:path';

import type { MemConfig } from '../config.js';
import type { ServerLayout } from '../memory/layout.js';
import type { EmbeddingModelIdentity, VectorIndex } from '../services/ports.js';
import type { MilvusIndexOptions } from '../adapters/milvus/milvus-index.js';
import { reconnectMilvus } from './collections.js';
import type { OpenOptions } from './options.js';
import type { LocalServers } from './servers.js';

export interface IndexClient {
  index: VectorIndex;
  /** Starts loading the index's client in a worker thread (OpenOptions.prepareIndex), when it is Milvus. */
  prepare?: (model: EmbeddingModelIdentity) => void;
  /** What the manifest is kept for: the local server's port changes at every restart, its collection does not. */
  indexIdentity: string;
}

/** The second dense field's model, when one is configured. */
const secondIdentity = (config: MemConfig) =>
  config.secondModel ? { second: { name: config.secondModel.model, dimension: config.secondModel.dimension } } : {};

/** Where the index is: the shared Milvus Lite (with its secret), or the Milvus MILVUS_URI names. */
export function milvusOptionsOf(config: MemConfig, collection: string, local: LocalServers, servers: ServerLayout): MilvusIndexOptions {
  return config.index.kind === 'embedded'
    ? {
        // The token is the server's secret: it refuses every call without it (adapters/runtime/owner-only.ts).
        address: `127.0.0.1:${local.milvus!.port}`,
        token: local.milvus!.secret,
        collection,
        embedded: true,
        ...secondIdentity(config),
        unavailableHint:
          `The shared Milvus Lite server stopped or does not answer (log: ${join(servers.servers, 'milvus-lite.log')}); ` +
          'run the command again to restart it. The memory files are unchanged; `mem reindex` brings the index up to date',
      }
    : { address: config.index.uri, collection, ...(config.index.token ? { token: config.index.token } : {}), ...secondIdentity(config) };
}

export async function openIndexClient(
  config: MemConfig,
  options: OpenOptions,
  milvusOptions: MilvusIndexOptions,
  local: LocalServers,
  servers: ServerLayout,
): Promise<IndexClient> {
  const [{ LazyMilvusIndex }, { DaemonIndex, daemonMayRun }, worker] = await Promise.all([
    import('../adapters/milvus/lazy-index.js'),
    options.indexThroughDaemon === false ? { DaemonIndex: undefined, daemonMayRun: undefined } : import('../adapters/daemon/daemon-index.js'),
    options.prepareIndex ? import('../adapters/milvus/worker-index.js') : undefined,
  ]);
  const lazyIndex = new LazyMilvusIndex(milvusOptions);
  // A daemon that runs for this configuration takes the small writes (DaemonIndex): no worker is started for them.
  const workerIndex =
    worker && !daemonMayRun?.(config)
      ? new worker.WorkerIndex(lazyIndex, {
          start: () => worker.startIndexThread(milvusOptions),
          ...(local.milvus ? { reconnect: () => reconnectMilvus(servers, local.milvus!, lazyIndex) } : {}),
        })
      : undefined;
  const ownIndex = workerIndex ?? lazyIndex;
  // The daemon's socket is named by the whole configuration (adapters/daemon/protocol.ts), as for `mem search`.
  const index = DaemonIndex ? new DaemonIndex(ownIndex, { target: config }) : ownIndex;
  const indexIdentity = config.index.kind === 'embedded' ? `milvus-lite (collection ${milvusOptions.collection})` : index.location;
  return { index, ...(workerIndex ? { prepare: (model: EmbeddingModelIdentity) => workerIndex.start(model) } : {}), indexIdentity };
}
