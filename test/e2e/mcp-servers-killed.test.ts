// `mem mcp` (the real bin/mem, the SDK's client over stdio) serving for a while when the shared Milvus Lite and
// embedding servers are killed: the call that meets the dead server is an MCP error, not a crash, and the next calls
// restart them and answer, as a new CLI command would (before, every later call failed until the agent restarted it).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MEM_BIN, cleanEnv, runMem } from '../support/harness.js';
import { ownServerHome, serverRecord } from '../support/server-home.js';
import { tempRoot } from '../support/temp-root.js';
import { rm } from 'node:fs/promises';

type ToolResult = { isError?: boolean; content: { type: string; text?: string }[] };

describe('mem mcp after its shared servers died', () => {
  const home = ownServerHome();
  let root: string;
  let client: Client;

  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as ToolResult;
    return { isError: Boolean(result.isError), text: result.content.map((c) => c.text ?? '').join('\n') };
  };

  beforeAll(async () => {
    root = await tempRoot({}, 'memdir-e2e-mcp-killed-');
    expect((await runMem(['add', 'Alice prefers window seats on trains', '--user', 'alice', '--json'], { root })).code).toBe(0);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MEM_BIN, '--root', root, 'mcp', '--user', 'alice'],
      env: cleanEnv({ MEMDIR_SERVER_HOME: home() }) as Record<string, string>,
      stderr: 'pipe',
    });
    client = new Client({ name: 'memdir-test', version: '1.0.0' });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
    if (root) await runMem(['server', 'stop'], { root });
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('one call fails with the restart hint; the next ones restart the servers and answer', async () => {
    expect((await call('memory_search', { query: 'which seat on a train' })).text).toContain('window seats');
    const milvus = await serverRecord(home(), 'milvus-lite');
    const embedder = await serverRecord(home(), 'embedder');
    process.kill(milvus.pid, 'SIGKILL');
    process.kill(embedder.pid, 'SIGKILL');

    const failed = await call('memory_search', { query: 'which seat on a train' });
    expect(failed.isError).toBe(true);
    expect(failed.text).toMatch(/unavailable|stopped or does not answer/);

    const add = await call('memory_add', { text: 'Alice books her train tickets a month ahead' });
    expect(add).toMatchObject({ isError: false });
    expect(add.text).toMatch(/^ADD /);
    const search = await call('memory_search', { query: 'when does she book train tickets' });
    expect(search.isError).toBe(false);
    expect(search.text).toContain('a month ahead');
    expect((await serverRecord(home(), 'milvus-lite')).pid).not.toBe(milvus.pid);
  });
});
