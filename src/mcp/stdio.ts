// Serves the MCP server over this process's stdin/stdout. stdout carries protocol messages only.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

import { createMcpServer, type McpServerOptions } from './server.js';

export interface StdioSession {
  /** Resolves when the client goes away (stdin ends or the transport closes). */
  readonly done: Promise<void>;
  close(): Promise<void>;
}

export async function serveStdio(options: McpServerOptions): Promise<StdioSession> {
  const server = createMcpServer(options);
  const transport = new StdioServerTransport();
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));
  transport.onclose = () => finish();
  // The transport does not watch for the end of stdin; a client that closes it is gone.
  process.stdin.once('end', () => finish());
  process.stdin.once('close', () => finish());
  await server.connect(transport);
  return {
    done,
    async close() {
      await server.close();
      finish();
    },
  };
}
