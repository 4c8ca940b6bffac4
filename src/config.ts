// Configuration: defaults, then environment, then flags. The only reader of the process environment in memdir
// (a test enforces it): the CLI, the composition root and the adapters that start child processes get it from here.
import { homedir, tmpdir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';

import { ConfigError } from './errors.js';
import { parseDuration } from './memory/duration.js';
import { isValidUserId } from './memory/ids.js';
import { MEMORY_TYPES } from './memory/model.js';
import { DEFAULT_LIFECYCLE, type LifecycleConfig } from './memory/lifecycle.js';

export type IndexConfig = { kind: 'embedded' } | { kind: 'remote'; uri: string; token?: string };

export type EmbeddingConfig =
  { kind: 'local' } | { kind: 'openai'; baseURL: string; apiKey: string; model: string; dimension: number; requestDimensions: boolean };

/** An OpenAI-compatible chat endpoint for reconciliation, consolidation and ingest; absent = offline rules. */
export interface LlmConfig {
  baseURL: string;
  apiKey: string;
  model: string;
}

/** An optional `/rerank` endpoint (Cohere, Jina, vLLM, TEI…) that reorders the best results of a search. */
export interface RerankConfig {
  url: string;
  model?: string;
  apiKey?: string;
  timeoutMs: number;
  /** How many of the best results are sent (at least k). */
  depth: number;
}

export interface MemConfig {
  /** Absolute path of the memory root (the folder of Markdown files). */
  root: string;
  /** The root is the personal memory root (MEM_PERSONAL_ROOT, default ~/.memdir): private as a whole, owner-only. */
  ownerOnly?: boolean;
  /** Owner of files that name no user and sit outside a user folder ($MEM_DEFAULT_OWNER, else "default"). */
  defaultOwner: string;
  /** Commit every write to git. */
  git: boolean;
  index: IndexConfig;
  /** Collection name; derived from the root when not set. */
  collection?: string;
  embedding: EmbeddingConfig;
  llm?: LlmConfig;
  /** Rerank stage of search ($MEM_RERANK_URL); absent = off. */
  rerank?: RerankConfig;
  /** Rewrite search queries with the chat model ($MEM_QUERY_REWRITE=on, needs MEM_LLM_MODEL); absent = off. */
  rewrite?: { timeoutMs: number };
  /** Where the embedded runtime (Python venv) lives. */
  runtimeHome: string;
  /**
   * Where the shared local servers of all roots keep their records, logs and Milvus Lite data
   * ($MEMDIR_SERVER_HOME, default the runtime home): one Milvus Lite and one embedding server per folder.
   */
  serverHome: string;
  /** How long the shared local servers stay up with no call and no memdir process using them ($MEM_SERVER_IDLE, default 15m; none: 0). */
  serverIdleMs: number;
  /** Owner-only folder of the search daemons' sockets: short, so any root works (socket paths hold 107 bytes). */
  socketDir: string;
  /** Python used to create the runtime venv. */
  python: string;
  chunkMaxChars: number;
  /** Context windows beside the units: units per window, 'chunks', or 0 (default memory/units.ts DEFAULT_WINDOW). */
  chunkWindow?: number | 'chunks';
  maxFileBytes: number;
  embedBatchSize: number;
  /** How long one embedding request may take; one that times out is not sent again. */
  embedTimeoutMs: number;
  lifecycle: LifecycleConfig;
  /** Share of dense relevance in weighted fusion with BM25, 0..1 (unset: the built-in default). */
  denseWeight?: number;
  /** A second dense field over the units' bare text ($MEM_SECOND_MODEL=mpnet; absent = off, the default). */
  secondModel?: SecondModelConfig;
}

/**
 * all-mpnet-base-v2 as a second dense field: memdir's own server from its own runtime (installed on first
 * use), or an OpenAI-compatible endpoint serving it ($MEM_SECOND_MODEL_URL); its identity is part of the index's,
 * so switching it says `mem reindex --rebuild`.
 */
export interface SecondModelConfig {
  /** The person's own server; absent: memdir's (adapters/runtime/second-runtime.ts). */
  baseURL?: string;
  model: string;
  dimension: number;
  /** Torch threads of memdir's own server ($MEM_SECOND_MODEL_THREADS, default 1). */
  threads: number;
}

const SECOND_MODELS: Record<string, { model: string; dimension: number }> = { mpnet: { model: 'all-mpnet-base-v2', dimension: 768 } };

export interface ConfigFlags {
  root?: string;
}

// Dimensions of well-known OpenAI models, so MEM_EMBED_DIMENSION is needed only for others.
const KNOWN_DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new ConfigError(`${name} must be a positive whole number, got ${JSON.stringify(raw)}`);
  return n;
}

function fraction(env: NodeJS.ProcessEnv, name: string): number {
  const n = Number(env[name]);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new ConfigError(`${name} must be a number from 0 to 1, got ${JSON.stringify(env[name])}`);
  return n;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'on', 'yes'].includes(raw)) return true;
  if (['0', 'false', 'off', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name} must be on or off, got ${JSON.stringify(env[name])}`);
}

function secondModelFrom(env: NodeJS.ProcessEnv): SecondModelConfig | undefined {
  const name = env.MEM_SECOND_MODEL;
  if (!name || name === 'off') return undefined;
  const known = SECOND_MODELS[name];
  if (!known) throw new ConfigError(`MEM_SECOND_MODEL must be "mpnet" or "off", got ${JSON.stringify(name)}`);
  const baseURL = env.MEM_SECOND_MODEL_URL;
  if (baseURL && !/^https?:\/\/[^\s]+$/.test(baseURL)) throw new ConfigError(`MEM_SECOND_MODEL_URL must be an http(s) URL, got ${JSON.stringify(baseURL)}`);
  return { ...(baseURL ? { baseURL } : {}), ...known, threads: positiveInt(env, 'MEM_SECOND_MODEL_THREADS', 1) };
}

function embeddingFrom(env: NodeJS.ProcessEnv): EmbeddingConfig {
  const kind = env.MEM_EMBEDDER ?? 'local';
  if (kind === 'local') return { kind: 'local' };
  if (kind !== 'openai') throw new ConfigError(`MEM_EMBEDDER must be "local" or "openai", got ${JSON.stringify(kind)}`);
  const model = env.MEM_EMBED_MODEL || 'text-embedding-3-small';
  const explicit = env.MEM_EMBED_DIMENSION ? positiveInt(env, 'MEM_EMBED_DIMENSION', 0) : undefined;
  const dimension = explicit ?? KNOWN_DIMENSIONS[model];
  if (!dimension) throw new ConfigError(`set MEM_EMBED_DIMENSION to the output size of embedding model ${model}`);
  return {
    kind: 'openai',
    baseURL: env.MEM_EMBED_BASE_URL || env.OPENAI_BASE_URL || 'https://api.openai.com/v1',
    apiKey: env.MEM_EMBED_API_KEY || env.OPENAI_API_KEY || 'not-needed',
    model,
    dimension,
    requestDimensions: explicit !== undefined && model.startsWith('text-embedding-3'),
  };
}

function llmFrom(env: NodeJS.ProcessEnv): LlmConfig | undefined {
  const model = env.MEM_LLM_MODEL;
  if (!model) {
    if (env.MEM_LLM_BASE_URL) throw new ConfigError('MEM_LLM_BASE_URL is set but MEM_LLM_MODEL is not: name the chat model to use');
    return undefined;
  }
  return {
    baseURL: env.MEM_LLM_BASE_URL || env.OPENAI_BASE_URL || 'https://api.openai.com/v1',
    apiKey: env.MEM_LLM_API_KEY || env.OPENAI_API_KEY || 'not-needed',
    model,
  };
}

function rerankFrom(env: NodeJS.ProcessEnv): RerankConfig | undefined {
  const url = env.MEM_RERANK_URL;
  if (!url) {
    if (env.MEM_RERANK_MODEL) throw new ConfigError('MEM_RERANK_MODEL is set but MEM_RERANK_URL is not: give the rerank endpoint');
    return undefined;
  }
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw new ConfigError(`MEM_RERANK_URL must be an http(s) URL, got ${JSON.stringify(url)}`);
  return {
    url,
    ...(env.MEM_RERANK_MODEL ? { model: env.MEM_RERANK_MODEL } : {}),
    ...(env.MEM_RERANK_API_KEY ? { apiKey: env.MEM_RERANK_API_KEY } : {}),
    timeoutMs: duration(env, 'MEM_RERANK_TIMEOUT') ?? 2_000,
    depth: positiveInt(env, 'MEM_RERANK_DEPTH', 30),
  };
}

function rewriteFrom(env: NodeJS.ProcessEnv, llm: LlmConfig | undefined): MemConfig['rewrite'] {
  if (!flag(env, 'MEM_QUERY_REWRITE', false)) return undefined;
  if (!llm) throw new ConfigError('MEM_QUERY_REWRITE is on but MEM_LLM_MODEL is not set: name the chat model that rewrites queries');
  return { timeoutMs: duration(env, 'MEM_QUERY_REWRITE_TIMEOUT') ?? 3_000 };
}

function duration(env: NodeJS.ProcessEnv, name: string): number | null | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  try {
    return parseDuration(raw, name);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

/** MEM_TTL_<TYPE> (e.g. MEM_TTL_WORKING=1d, none), MEM_DEDUP_THRESHOLD, MEM_GC_GRACE, MEM_CONSOLIDATE_THRESHOLD. */
function lifecycleFrom(env: NodeJS.ProcessEnv): LifecycleConfig {
  const ttl = { ...DEFAULT_LIFECYCLE.ttl };
  for (const type of MEMORY_TYPES) {
    const value = duration(env, `MEM_TTL_${type.toUpperCase()}`);
    if (value === null) delete ttl[type];
    else if (value !== undefined) ttl[type] = value;
  }
  const grace = duration(env, 'MEM_GC_GRACE');
  return {
    ttl,
    duplicateThreshold: env.MEM_DEDUP_THRESHOLD ? fraction(env, 'MEM_DEDUP_THRESHOLD') : DEFAULT_LIFECYCLE.duplicateThreshold,
    gcGraceMs: grace === undefined ? DEFAULT_LIFECYCLE.gcGraceMs : (grace ?? 0),
    consolidateThreshold: env.MEM_CONSOLIDATE_THRESHOLD ? fraction(env, 'MEM_CONSOLIDATE_THRESHOLD') : DEFAULT_LIFECYCLE.consolidateThreshold,
  };
}

function userId(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  if (!value) return undefined;
  if (!isValidUserId(value)) throw new ConfigError(`${name} is not a valid user id: ${JSON.stringify(value).slice(0, 80)}`);
  return value;
}

// $XDG_RUNTIME_DIR/memdir, else <tmp>/memdir-<uid>; a folder too long to leave room for a socket name is not used.
function socketDirFrom(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_RUNTIME_DIR;
  if (xdg && xdg.length <= 60) return join(xdg, 'memdir');
  const tmp = tmpdir().length <= 60 ? tmpdir() : '/tmp';
  return join(tmp, `memdir-${process.getuid?.() ?? 'user'}`);
}

/** The personal memory root, shared by every project's sessions. */
const personalRootOf = (env: NodeJS.ProcessEnv) => resolve(env.MEM_PERSONAL_ROOT || join(homedir(), '.memdir'));

export function loadConfig(env: NodeJS.ProcessEnv, flags: ConfigFlags = {}): MemConfig {
  const root = resolve(flags.root ?? env.MEM_ROOT ?? 'memories');
  const llm = llmFrom(env);
  const rerank = rerankFrom(env);
  const rewrite = rewriteFrom(env, llm);
  const secondModel = secondModelFrom(env);
  const uri = env.MILVUS_URI;
  const collection = env.MEM_COLLECTION;
  const serverIdle = duration(env, 'MEM_SERVER_IDLE');
  const runtimeHome = env.MEMDIR_HOME || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'memdir');
  if (collection && !/^[A-Za-z_][A-Za-z0-9_]{0,254}$/.test(collection)) {
    throw new ConfigError('MEM_COLLECTION must be letters, digits and underscores, starting with a letter or underscore');
  }
  return {
    root,
    ...(root === personalRootOf(env) ? { ownerOnly: true } : {}),
    defaultOwner: userId(env, 'MEM_DEFAULT_OWNER') ?? 'default',
    git: flag(env, 'MEM_GIT', true),
    index: uri ? { kind: 'remote', uri, ...(env.MILVUS_TOKEN ? { token: env.MILVUS_TOKEN } : {}) } : { kind: 'embedded' },
    ...(collection ? { collection } : {}),
    embedding: embeddingFrom(env),
    ...(llm ? { llm } : {}),
    ...(rerank ? { rerank } : {}),
    ...(rewrite ? { rewrite } : {}),
    lifecycle: lifecycleFrom(env),
    runtimeHome,
    serverHome: env.MEMDIR_SERVER_HOME ? resolve(env.MEMDIR_SERVER_HOME) : runtimeHome,
    serverIdleMs: serverIdle === undefined ? 15 * 60_000 : (serverIdle ?? 0),
    socketDir: socketDirFrom(env),
    python: env.MEM_PYTHON || 'python3',
    chunkMaxChars: positiveInt(env, 'MEM_CHUNK_MAX_CHARS', 1500),
    maxFileBytes: positiveInt(env, 'MEM_MAX_FILE_MB', 5) * 1024 * 1024,
    embedBatchSize: positiveInt(env, 'MEM_EMBED_BATCH', 32),
    embedTimeoutMs: duration(env, 'MEM_EMBED_TIMEOUT') ?? 120_000,
    ...(env.MEM_DENSE_WEIGHT ? { denseWeight: fraction(env, 'MEM_DENSE_WEIGHT') } : {}),
    ...(secondModel ? { secondModel } : {}),
  };
}

/** Settings of the `mem` command line only (not of a memory root: the search daemon's key leaves them out). */
export interface CliSettings {
  /** The CLI's acting user: the default of `--user` ($MEM_USER). */
  user?: string;
  /** Whether `mem search` may use and start the search daemon ($MEM_DAEMON, default on). */
  daemon: boolean;
  /** How long the search daemon waits for a request before it exits ($MEM_DAEMON_IDLE, default 15m). */
  daemonIdleMs: number;
}

export function loadCliSettings(env: NodeJS.ProcessEnv): CliSettings {
  const user = userId(env, 'MEM_USER');
  // Not a root's setting: a daemon of any idle time serves the same roots (none, 0, would never stop: refused).
  const idle = duration(env, 'MEM_DAEMON_IDLE');
  if (idle === null || idle === 0) throw new ConfigError('MEM_DAEMON_IDLE must be a duration such as 15m (the search daemon always stops when idle)');
  return { ...(user ? { user } : {}), daemon: flag(env, 'MEM_DAEMON', true), daemonIdleMs: idle ?? 15 * 60_000 };
}

/** The root's configuration from this process's environment and the given flags. */
export function configFromEnvironment(flags: ConfigFlags = {}): MemConfig {
  return loadConfig(process.env, flags);
}

/** The CLI's settings from this process's environment. */
export function cliSettingsFromEnvironment(): CliSettings {
  return loadCliSettings(process.env);
}

/** The environment child processes inherit (the runtime installer, the local servers, git). */
export function inheritedEnvironment(): NodeJS.ProcessEnv {
  return process.env;
}

/** What the coding-agent integration (`mem integrate`, `mem hook`) reads besides a root's configuration. */
export interface AgentConfig {
  /** The person's home folder (where agents keep their user-scope configuration). */
  home: string;
  /** The personal memory root, shared by every project's sessions (MEM_PERSONAL_ROOT, default ~/.memdir). */
  personalRoot: string;
  /** Whose memories the sessions see and write (MEM_USER, else the OS user name when it is a valid id). */
  user: string;
  /** Token budget of the context block injected at session start (MEM_HOOK_CONTEXT_TOKENS, default 1200). */
  contextTokens: number;
  /** Token budget of the recall added to a prompt (MEM_HOOK_PROMPT_TOKENS, default 500). */
  promptTokens: number;
  /** Time budgets of the session-start and prompt hooks (MEM_HOOK_START_MS 2000, MEM_HOOK_PROMPT_MS 1000). */
  startBudgetMs: number;
  promptBudgetMs: number;
  /** Whether hooks may start the search daemon (MEM_DAEMON, default on). */
  daemon: boolean;
}

function osUser(): string | undefined {
  try {
    const name = userInfo()
      .username.toLowerCase()
      .replace(/[^a-z0-9._@-]+/g, '-')
      .replace(/^[^a-z0-9]+/, '')
      .slice(0, 64);
    return isValidUserId(name) ? name : undefined;
  } catch {
    return undefined; // no passwd entry (some containers)
  }
}

export function loadAgentConfig(env: NodeJS.ProcessEnv): AgentConfig {
  return {
    home: homedir(),
    personalRoot: personalRootOf(env),
    user: userId(env, 'MEM_USER') ?? osUser() ?? 'default',
    contextTokens: positiveInt(env, 'MEM_HOOK_CONTEXT_TOKENS', 1200),
    promptTokens: positiveInt(env, 'MEM_HOOK_PROMPT_TOKENS', 500),
    startBudgetMs: positiveInt(env, 'MEM_HOOK_START_MS', 2000),
    promptBudgetMs: positiveInt(env, 'MEM_HOOK_PROMPT_MS', 1000),
    daemon: flag(env, 'MEM_DAEMON', true),
  };
}

/** The agent integration's settings from this process's environment. */
export function agentConfigFromEnvironment(): AgentConfig {
  return loadAgentConfig(process.env);
}
