// `mem mcp --user <u>`: an MCP server over stdio whose tools see that one user's memories.
import { assertUserId } from '../../memory/ids.js';
import type { Memory } from '../../services/facade.js';
import { cliSettings, configFrom } from '../context.js';
import { reopeningMemory } from '../reopen-memory.js';
import type { GlobalOptions, Io } from '../io.js';
import { requireUser } from './parse-options.js';

export interface McpOptions extends GlobalOptions {
  user?: string;
  project?: boolean;
}

export async function mcpCommand(opts: McpOptions, io: Io): Promise<void> {
  const user = assertUserId(requireUser(opts.user));
  const { openMemory, projectMemoryRoot } = await import('../../open-memory.js');
  // --project: the agent starts the server in the project's folder; every worktree finds the same root.
  const config = configFrom(opts.project ? { ...opts, root: (await projectMemoryRoot(process.cwd())).root } : opts);
  // Answer the client's handshake at once; tools wait for the memory (the first start of the
  // local servers can take a minute). Set-up messages go to stderr: stdout is the protocol's.
  // Opened again after its shared servers died (the next tool call restarts them): see reopen-memory.ts.
  const open = (): Promise<Memory> => {
    const opening = openMemory(config, { onLog: (line) => io.note(line), indexThroughDaemon: cliSettings().daemon });
    opening.catch((err: unknown) => io.note(`mem mcp: cannot open ${config.root}: ${err instanceof Error ? err.message : String(err)}`));
    return opening;
  };
  const memory = reopeningMemory(open);
  memory.memory().catch(() => undefined);
  const { serveStdio } = await import('../../mcp/stdio.js');
  const session = await serveStdio({ memory: () => memory.memory(), user });
  io.note(`mem mcp: serving memories of user ${user} from ${config.root} over stdio`);
  const signalled = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await Promise.race([session.done, signalled]);
  await session.close();
  await memory.close();
}
