// Covers loadConfig(env, flags): defaults, env parsing (MEM_GIT, numbers, embedder, Milvus URI, collection) and config errors.
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

import { loadAgentConfig, loadCliSettings, loadConfig } from '../../src/config.js';
import { ConfigError, MemError } from '../../src/errors.js';
import { thrown } from '../support/thrown.js';

function configError(env: NodeJS.ProcessEnv): ConfigError {
  return thrown(() => loadConfig(env), ConfigError);
}

describe('loadConfig defaults', () => {
  it('uses the documented defaults for an empty environment', () => {
    expect(loadConfig({})).toEqual({
      root: resolve('memories'),
      defaultOwner: 'default',
      git: true,
      index: { kind: 'embedded' },
      embedding: { kind: 'local' },
      runtimeHome: join(homedir(), '.cache', 'memdir'),
      serverHome: join(homedir(), '.cache', 'memdir'),
      serverIdleMs: 15 * 60_000,
      socketDir: join(tmpdir(), `memdir-${process.getuid!()}`),
      python: 'python3',
      chunkMaxChars: 1500,
      maxFileBytes: 5 * 1024 * 1024,
      embedBatchSize: 32,
      embedTimeoutMs: 120_000,
      lifecycle: { ttl: { working: 86_400_000, episodic: 90 * 86_400_000 }, duplicateThreshold: 0.95, gcGraceMs: 30 * 86_400_000, consolidateThreshold: 0.88 },
    });
  });

  it('treats empty strings as unset for the optional settings', () => {
    const config = loadConfig({
      MEM_USER: '',
      MEM_GIT: '',
      MILVUS_URI: '',
      MEM_CHUNK_MAX_CHARS: '',
      MEM_MAX_FILE_MB: '',
      MEM_EMBED_BATCH: '',
      MEMDIR_HOME: '',
      XDG_CACHE_HOME: '',
      MEM_PYTHON: '',
    });
    expect(config).toEqual(loadConfig({}));
  });

  it('treats an empty MEM_COLLECTION as unset like the other settings', () => {
    const config = loadConfig({ MEM_COLLECTION: '' });
    expect(config.collection).toBeUndefined();
  });
});

describe('loadConfig root', () => {
  it('resolves MEM_ROOT to an absolute path', () => {
    expect(loadConfig({ MEM_ROOT: 'some/dir' }).root).toBe(resolve('some/dir'));
    expect(loadConfig({ MEM_ROOT: '/abs/mem' }).root).toBe('/abs/mem');
  });

  it('lets the --root flag win over MEM_ROOT', () => {
    expect(loadConfig({ MEM_ROOT: '/from/env' }, { root: '/from/flag' }).root).toBe('/from/flag');
  });
});

describe('loadConfig MEM_GIT', () => {
  it.each(['1', 'true', 'on', 'yes', 'ON', 'Yes', 'TRUE'])('%j turns git on', (v) => {
    expect(loadConfig({ MEM_GIT: v }).git).toBe(true);
  });

  it.each(['0', 'false', 'off', 'no', 'OFF', 'No'])('%j turns git off', (v) => {
    expect(loadConfig({ MEM_GIT: v }).git).toBe(false);
  });

  it.each(['maybe', '2', 'enabled', ' on'])('%j is a config error naming MEM_GIT', (v) => {
    const err = configError({ MEM_GIT: v });
    expect(err.message).toContain('MEM_GIT');
    expect(err.message).toContain(JSON.stringify(v));
    expect(err.exitCode).toBe(2);
  });
});

describe('loadConfig numbers', () => {
  it('reads positive whole numbers', () => {
    const c = loadConfig({ MEM_CHUNK_MAX_CHARS: '800', MEM_MAX_FILE_MB: '2', MEM_EMBED_BATCH: '8' });
    expect(c.chunkMaxChars).toBe(800);
    expect(c.maxFileBytes).toBe(2 * 1024 * 1024);
    expect(c.embedBatchSize).toBe(8);
  });

  it.each(['0', '-1', '1.5', 'abc', '10x'])('rejects %j with the variable name', (v) => {
    expect(configError({ MEM_CHUNK_MAX_CHARS: v }).message).toContain('MEM_CHUNK_MAX_CHARS');
    expect(configError({ MEM_EMBED_BATCH: v }).message).toContain('MEM_EMBED_BATCH');
    expect(configError({ MEM_MAX_FILE_MB: v }).message).toContain('MEM_MAX_FILE_MB');
  });
});

describe('loadConfig user', () => {
  it("MEM_USER is the CLI's acting user only; MEM_DEFAULT_OWNER owns files outside user folders", () => {
    expect(loadCliSettings({ MEM_USER: 'alice' }).user).toBe('alice');
    expect(loadConfig({ MEM_USER: 'alice' }).defaultOwner).toBe('default');
    expect(loadConfig({ MEM_DEFAULT_OWNER: 'team' }).defaultOwner).toBe('team');
    expect(loadCliSettings({ MEM_DEFAULT_OWNER: 'team' }).user).toBeUndefined();
  });

  it('rejects an invalid MEM_USER or MEM_DEFAULT_OWNER with exit code 2, naming the variable', () => {
    for (const bad of ['a b', '../x', 'u" or user == "v']) {
      for (const [name, load] of [
        ['MEM_USER', loadCliSettings],
        ['MEM_DEFAULT_OWNER', loadConfig],
      ] as const) {
        let caught: unknown;
        try {
          load({ [name]: bad });
        } catch (err) {
          caught = err;
        }
        expect(caught).toBeInstanceOf(MemError);
        expect((caught as MemError).exitCode).toBe(2);
        expect((caught as MemError).message).toContain(name);
      }
    }
  });

  it('MEM_DAEMON is on unless turned off', () => {
    expect(loadCliSettings({}).daemon).toBe(true);
    expect(loadCliSettings({ MEM_DAEMON: 'off' }).daemon).toBe(false);
    expect(loadCliSettings({ MEM_DAEMON: 'on' }).daemon).toBe(true);
  });

  it('MEM_DAEMON_IDLE sets how long the search daemon waits (15 minutes by default) and cannot turn its stop off', () => {
    expect(loadCliSettings({}).daemonIdleMs).toBe(15 * 60_000);
    expect(loadCliSettings({ MEM_DAEMON_IDLE: '5s' }).daemonIdleMs).toBe(5_000);
    expect(() => loadCliSettings({ MEM_DAEMON_IDLE: 'none' })).toThrow(/MEM_DAEMON_IDLE/);
    expect(() => loadCliSettings({ MEM_DAEMON_IDLE: 'soon' })).toThrow(/MEM_DAEMON_IDLE/);
  });
});

describe('loadConfig index', () => {
  it('is embedded without MILVUS_URI', () => {
    expect(loadConfig({ MILVUS_TOKEN: 'ignored' }).index).toEqual({ kind: 'embedded' });
  });

  it('is remote with MILVUS_URI, with the token when given', () => {
    expect(loadConfig({ MILVUS_URI: 'http://milvus:19530' }).index).toEqual({ kind: 'remote', uri: 'http://milvus:19530' });
    expect(loadConfig({ MILVUS_URI: 'https://x.zillizcloud.com', MILVUS_TOKEN: 'secret' }).index).toEqual({
      kind: 'remote',
      uri: 'https://x.zillizcloud.com',
      token: 'secret',
    });
  });

  it('accepts a valid MEM_COLLECTION', () => {
    expect(loadConfig({ MEM_COLLECTION: 'my_memories_2' }).collection).toBe('my_memories_2');
    expect(loadConfig({ MEM_COLLECTION: '_x' }).collection).toBe('_x');
  });

  it.each(['2start', 'has-dash', 'has space', 'a.b', 'x'.repeat(256), 'drop"x'])('rejects MEM_COLLECTION %j', (v) => {
    expect(configError({ MEM_COLLECTION: v }).message).toContain('MEM_COLLECTION');
  });

  it('accepts a 255-character collection name', () => {
    expect(loadConfig({ MEM_COLLECTION: 'c'.repeat(255) }).collection).toHaveLength(255);
  });
});

describe('loadConfig embedder', () => {
  it('is local by default and when asked', () => {
    expect(loadConfig({ MEM_EMBEDDER: 'local' }).embedding).toEqual({ kind: 'local' });
  });

  it('rejects unknown embedders', () => {
    expect(configError({ MEM_EMBEDDER: 'cohere' }).message).toContain('MEM_EMBEDDER');
  });

  it('knows the dimension of the default OpenAI model', () => {
    expect(loadConfig({ MEM_EMBEDDER: 'openai', OPENAI_API_KEY: 'sk-test' }).embedding).toEqual({
      kind: 'openai',
      baseURL: 'https://api.openai.com/v1',
      apiKey: 'sk-test',
      model: 'text-embedding-3-small',
      dimension: 1536,
      requestDimensions: false,
    });
    expect(loadConfig({ MEM_EMBEDDER: 'openai', MEM_EMBED_MODEL: 'text-embedding-3-large' }).embedding).toMatchObject({ dimension: 3072 });
    expect(loadConfig({ MEM_EMBEDDER: 'openai', MEM_EMBED_MODEL: 'text-embedding-ada-002' }).embedding).toMatchObject({ dimension: 1536 });
  });

  it('needs MEM_EMBED_DIMENSION for an unknown model', () => {
    const err = configError({ MEM_EMBEDDER: 'openai', MEM_EMBED_MODEL: 'nomic-embed-text' });
    expect(err.message).toContain('MEM_EMBED_DIMENSION');
    expect(err.message).toContain('nomic-embed-text');
    expect(loadConfig({ MEM_EMBEDDER: 'openai', MEM_EMBED_MODEL: 'nomic-embed-text', MEM_EMBED_DIMENSION: '768' }).embedding).toMatchObject({
      model: 'nomic-embed-text',
      dimension: 768,
      requestDimensions: false,
    });
  });

  it('requests reduced dimensions only from text-embedding-3 models given an explicit dimension', () => {
    expect(loadConfig({ MEM_EMBEDDER: 'openai', MEM_EMBED_MODEL: 'text-embedding-3-large', MEM_EMBED_DIMENSION: '256' }).embedding).toMatchObject({
      dimension: 256,
      requestDimensions: true,
    });
  });

  it('rejects a bad MEM_EMBED_DIMENSION', () => {
    for (const v of ['0', '-3', 'abc', '1.5']) {
      expect(configError({ MEM_EMBEDDER: 'openai', MEM_EMBED_DIMENSION: v }).message).toContain('MEM_EMBED_DIMENSION');
    }
  });

  it('prefers MEM_EMBED_* over OPENAI_* for the endpoint and key', () => {
    expect(
      loadConfig({
        MEM_EMBEDDER: 'openai',
        MEM_EMBED_BASE_URL: 'http://local:8080/v1',
        OPENAI_BASE_URL: 'http://other/v1',
        MEM_EMBED_API_KEY: 'mine',
        OPENAI_API_KEY: 'theirs',
      }).embedding,
    ).toMatchObject({ baseURL: 'http://local:8080/v1', apiKey: 'mine' });
    expect(loadConfig({ MEM_EMBEDDER: 'openai', OPENAI_BASE_URL: 'http://other/v1' }).embedding).toMatchObject({
      baseURL: 'http://other/v1',
      apiKey: 'not-needed',
    });
  });
});

describe('loadConfig lifecycle', () => {
  it('reads TTLs per type, "none" removing a default', () => {
    const c = loadConfig({ MEM_TTL_WORKING: '12h', MEM_TTL_EPISODIC: 'none', MEM_TTL_SEMANTIC: '1y' });
    expect(c.lifecycle.ttl).toEqual({ working: 43_200_000, semantic: 31_557_600_000 });
  });

  it('reads thresholds and the gc grace period', () => {
    const c = loadConfig({ MEM_DEDUP_THRESHOLD: '0.99', MEM_CONSOLIDATE_THRESHOLD: '0.8', MEM_GC_GRACE: 'none' });
    expect(c.lifecycle).toMatchObject({ duplicateThreshold: 0.99, consolidateThreshold: 0.8, gcGraceMs: 0 });
  });

  it('rejects a bad duration or threshold with exit code 2', () => {
    expect(configError({ MEM_TTL_WORKING: 'tomorrow' }).message).toMatch(/MEM_TTL_WORKING must be a duration/);
    expect(configError({ MEM_DEDUP_THRESHOLD: '2' }).exitCode).toBe(2);
  });
});

describe('loadConfig LLM', () => {
  it('is offline unless a model is named', () => {
    expect(loadConfig({}).llm).toBeUndefined();
    expect(loadConfig({ MEM_LLM_MODEL: 'gpt-4o-mini', MEM_LLM_BASE_URL: 'http://127.0.0.1:9/v1' }).llm).toEqual({
      baseURL: 'http://127.0.0.1:9/v1',
      apiKey: 'not-needed',
      model: 'gpt-4o-mini',
    });
    expect(configError({ MEM_LLM_BASE_URL: 'http://127.0.0.1:9/v1' }).message).toMatch(/MEM_LLM_MODEL/);
  });
});

describe('loadConfig search stages', () => {
  it('has no rerank stage unless MEM_RERANK_URL names one; reads model, key, timeout and depth', () => {
    expect(loadConfig({}).rerank).toBeUndefined();
    expect(loadConfig({ MEM_RERANK_URL: 'http://127.0.0.1:8080/v1/rerank' }).rerank).toEqual({
      url: 'http://127.0.0.1:8080/v1/rerank',
      timeoutMs: 2_000,
      depth: 30,
    });
    expect(
      loadConfig({
        MEM_RERANK_URL: 'https://api.example.com/v2/rerank',
        MEM_RERANK_MODEL: 'rerank-v3.5',
        MEM_RERANK_API_KEY: 'k',
        MEM_RERANK_TIMEOUT: '500ms',
        MEM_RERANK_DEPTH: '50',
      }).rerank,
    ).toEqual({ url: 'https://api.example.com/v2/rerank', model: 'rerank-v3.5', apiKey: 'k', timeoutMs: 500, depth: 50 });
    expect(configError({ MEM_RERANK_MODEL: 'm' }).message).toMatch(/MEM_RERANK_URL/);
    expect(configError({ MEM_RERANK_URL: 'localhost:8080' }).exitCode).toBe(2);
  });

  it('rewrites queries only when MEM_QUERY_REWRITE is on, and only with a chat model', () => {
    expect(loadConfig({ MEM_LLM_MODEL: 'm' }).rewrite).toBeUndefined();
    expect(loadConfig({ MEM_LLM_MODEL: 'm', MEM_QUERY_REWRITE: 'on' }).rewrite).toEqual({ timeoutMs: 3_000 });
    expect(loadConfig({ MEM_LLM_MODEL: 'm', MEM_QUERY_REWRITE: 'on', MEM_QUERY_REWRITE_TIMEOUT: '1s' }).rewrite).toEqual({ timeoutMs: 1_000 });
    expect(configError({ MEM_QUERY_REWRITE: 'on' }).message).toMatch(/MEM_LLM_MODEL/);
  });
});

describe('loadConfig runtime', () => {
  it('puts the runtime under MEMDIR_HOME, else XDG_CACHE_HOME/memdir', () => {
    expect(loadConfig({ MEMDIR_HOME: '/opt/memdir' }).runtimeHome).toBe('/opt/memdir');
    expect(loadConfig({ XDG_CACHE_HOME: '/xdg' }).runtimeHome).toBe(join('/xdg', 'memdir'));
    expect(loadConfig({ MEMDIR_HOME: '/opt/memdir', XDG_CACHE_HOME: '/xdg' }).runtimeHome).toBe('/opt/memdir');
  });

  it('keeps the shared servers under the runtime home unless MEMDIR_SERVER_HOME says otherwise', () => {
    expect(loadConfig({ MEMDIR_HOME: '/opt/memdir' }).serverHome).toBe('/opt/memdir');
    expect(loadConfig({ MEMDIR_HOME: '/opt/memdir', MEMDIR_SERVER_HOME: '/srv/mem' }).serverHome).toBe('/srv/mem');
  });

  it('reads the servers idle time from MEM_SERVER_IDLE (none: never)', () => {
    expect(loadConfig({ MEM_SERVER_IDLE: '30s' }).serverIdleMs).toBe(30_000);
    expect(loadConfig({ MEM_SERVER_IDLE: 'none' }).serverIdleMs).toBe(0);
    expect(() => loadConfig({ MEM_SERVER_IDLE: 'soon' })).toThrow(/MEM_SERVER_IDLE/);
  });

  it('reads MEM_PYTHON', () => {
    expect(loadConfig({ MEM_PYTHON: '/usr/bin/python3.12' }).python).toBe('/usr/bin/python3.12');
  });
});

describe('the daemon socket folder', () => {
  it('is $XDG_RUNTIME_DIR/memdir when that is short, else an owner-named folder under the temp folder', () => {
    expect(loadConfig({ XDG_RUNTIME_DIR: '/run/user/1000' }).socketDir).toBe('/run/user/1000/memdir');
    expect(loadConfig({ XDG_RUNTIME_DIR: `/${'x'.repeat(80)}` }).socketDir).toBe(join(tmpdir(), `memdir-${process.getuid!()}`));
  });
});

describe('loadAgentConfig', () => {
  it('personal root under the home folder, budgets and the daemon switch, overridable by the environment', () => {
    const defaults = loadAgentConfig({ MEM_USER: 'ann' });
    expect(defaults).toEqual({
      home: homedir(),
      personalRoot: join(homedir(), '.memdir'),
      user: 'ann',
      contextTokens: 1200,
      promptTokens: 500,
      startBudgetMs: 2000,
      promptBudgetMs: 1000,
      daemon: true,
    });
    expect(
      loadAgentConfig({ MEM_USER: 'ann', MEM_PERSONAL_ROOT: 'mine', MEM_HOOK_CONTEXT_TOKENS: '300', MEM_HOOK_PROMPT_TOKENS: '90', MEM_DAEMON: 'off' }),
    ).toMatchObject({ personalRoot: resolve('mine'), contextTokens: 300, promptTokens: 90, daemon: false });
    // Without MEM_USER: the OS user name when it is a valid id.
    expect(loadAgentConfig({}).user).toMatch(/^[a-z0-9][a-z0-9._@-]*$/);
    expect(thrown(() => loadAgentConfig({ MEM_USER: 'not ok!' }), ConfigError).message).toContain('MEM_USER is not a valid user id');
    expect(thrown(() => loadAgentConfig({ MEM_HOOK_CONTEXT_TOKENS: '-1' }), ConfigError).message).toContain(
      'MEM_HOOK_CONTEXT_TOKENS must be a positive whole number',
    );
  });
});

describe('loadConfig second dense field (issue 12)', () => {
  it('is off unless MEM_SECOND_MODEL names one', () => {
    expect(loadConfig({}).secondModel).toBeUndefined();
    expect(loadConfig({ MEM_SECOND_MODEL: 'off' }).secondModel).toBeUndefined();
  });

  it("mpnet: all-mpnet-base-v2, 768 dimensions, at MEM_SECOND_MODEL_URL, or memdir's own server without it", () => {
    expect(loadConfig({ MEM_SECOND_MODEL: 'mpnet', MEM_SECOND_MODEL_URL: 'http://127.0.0.1:9/v1' }).secondModel).toEqual({
      baseURL: 'http://127.0.0.1:9/v1',
      model: 'all-mpnet-base-v2',
      dimension: 768,
      threads: 1,
    });
    expect(loadConfig({ MEM_SECOND_MODEL: 'mpnet', MEM_SECOND_MODEL_THREADS: '2' }).secondModel).toEqual({
      model: 'all-mpnet-base-v2',
      dimension: 768,
      threads: 2,
    });
  });

  it('refuses an unknown model, a malformed address and a bad thread count', () => {
    expect(configError({ MEM_SECOND_MODEL: 'bge' }).message).toContain('MEM_SECOND_MODEL must be "mpnet" or "off"');
    expect(configError({ MEM_SECOND_MODEL: 'mpnet', MEM_SECOND_MODEL_URL: 'localhost:9' }).message).toContain('MEM_SECOND_MODEL_URL');
    expect(configError({ MEM_SECOND_MODEL: 'mpnet', MEM_SECOND_MODEL_THREADS: '0' }).message).toContain('MEM_SECOND_MODEL_THREADS');
  });
});
