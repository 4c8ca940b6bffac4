// Ensures the shared local runtime a configuration uses: the Python runtime installed, the root registered and
// leased, and the Milvus Lite and embedding servers started (a server this command started first drops the
// collections of deleted roots).
import { mkdir } from 'node:fs/promises';

import type { MemConfig } from '../config.js';
import { errorMessage } from '../errors.js';
import type { ServerLayout, StateLayout } from '../memory/layout.js';
import type { ServerRecord } from '../adapters/runtime/managed-server.js';
import { pruneOrphans } from './collections.js';
import type { OpenOptions } from './options.js';
import { registerAndLease, type Registration } from './register.js';

export type LocalServers = { milvus?: ServerRecord; embedder?: ServerRecord };

/** The runtime in use: the registration (absent when the configuration needs no local server) and the servers. */
export interface LocalRuntime {
  registration?: Registration;
  local: LocalServers;
}

/** Whether the configuration uses memdir's own local runtime (Milvus Lite, the embedding server, or its mpnet server). */
function needsRuntime(config: MemConfig): boolean {
  const needsDefault = config.index.kind === 'embedded' || config.embedding.kind === 'local';
  // memdir's own mpnet server (started on first use, secondModelOf) needs the root registered and leased like the others.
  return needsDefault || (config.secondModel !== undefined && !config.secondModel.baseURL);
}

export async function ensureLocalServers(config: MemConfig, options: OpenOptions, layout: StateLayout, servers: ServerLayout): Promise<LocalRuntime> {
  if (!needsRuntime(config)) return { local: {} };
  const [{ ensureRuntime }, { ensureServer }, { milvusLiteSpec, embeddingServerSpec }] = await Promise.all([
    import('../adapters/runtime/python-runtime.js'),
    import('../adapters/runtime/managed-server.js'),
    import('../adapters/runtime/local-servers.js'),
  ]);
  const needsDefault = config.index.kind === 'embedded' || config.embedding.kind === 'local';
  const runtime = needsDefault
    ? await ensureRuntime({ home: config.runtimeHome, python: config.python, ...(options.onLog ? { onLog: options.onLog } : {}) })
    : undefined;
  const registration = await registerAndLease(config, options, layout, servers);
  try {
    // The index holds the memories' text: owner-only, like the root's own `.mem/`.
    if (config.index.kind === 'embedded') await mkdir(servers.milvusData, { recursive: true, mode: 0o700 });
    const asked = Date.now();
    const [milvus, embedder] = await Promise.all([
      config.index.kind === 'embedded' ? ensureServer(milvusLiteSpec(runtime!, servers, config.serverIdleMs)) : undefined,
      config.embedding.kind === 'local' ? ensureServer(embeddingServerSpec(runtime!, servers, config.serverIdleMs)) : undefined,
    ]);
    // A server this command started drops the collections of roots deleted since (their text would stay in its data).
    if (milvus && Date.parse(milvus.startedAt) >= asked - 1_000) {
      const dropped = await pruneOrphans(servers, milvus).catch((err: unknown) => {
        options.onLog?.(`could not drop the index of deleted roots (see \`mem server status\`): ${errorMessage(err)}`);
        return [];
      });
      if (dropped.length > 0) options.onLog?.(`dropped the index of deleted roots: ${dropped.map((d) => d.root).join(', ')}`);
    }
    return { registration, local: { ...(milvus ? { milvus } : {}), ...(embedder ? { embedder } : {}) } };
  } catch (err) {
    await registration.release();
    throw err;
  }
}
