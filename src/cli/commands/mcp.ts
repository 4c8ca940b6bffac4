// `mem mcp --user <u>`: an MCP server over stdio whose tools see that one user's memories.
import { existsSync } from 'node:fs';

import { RootGoneError, UsageError } from '../../errors.js';
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
  const project = opts.project ? await projectMemoryRoot(process.cwd()) : undefined;
  const config = configFrom(project ? { ...opts, root: project.root } : opts);
  // A user-scope install starts this server wherever the agent runs ($HOME, /tmp): outside a git work tree
  // it makes no memories/ there, and every tool says why instead.
  const noProject =
    project && !project.project.inWorkTree
      ? new UsageError(
          `no project memory: ${process.cwd()} is not in a git work tree (\`git init\` gives the folder one; personal memory is memdir-personal's)`,
        )
      : undefined;
  // Answer the client's handshake at once; tools wait for the memory (the first start of the
  // local servers can take a minute). Set-up messages go to stderr: stdout is the protocol's.
  // Opened again after its shared servers died (the next tool call restarts them): see reopen-memory.ts.
  // The first opening may make a new root; once the root exists, a later opening (after the servers died) never makes
  // it again: a root deleted under the session stays deleted, and the session stops (rootGone).
  let made = false;
  const open = (): Promise<Memory> => {
    if (noProject) return Promise.reject(noProject);
    const opening = openMemory(config, { onLog: (line) => io.note(line), indexThroughDaemon: cliSettings().daemon, existingRoot: made });
    opening.then(
      () => (made = true),
      (err: unknown) => io.note(`mem mcp: cannot open ${config.root}: ${err instanceof Error ? err.message : String(err)}`),
    );
    return opening;
  };
  const memory = reopeningMemory(open);
  memory.memory().catch(() => undefined);
  let gone: (err: RootGoneError) => void = () => undefined;
  const rootGone = new Promise<RootGoneError>((resolve) => (gone = resolve));
  // Each tool call looks for the root first: one deleted (or moved away) ends the session with a clear error.
  const current = async (): Promise<Memory> => {
    if (made && !existsSync(config.root)) {
      const err = new RootGoneError(`the memory root ${config.root} is gone (deleted or moved away): mem mcp stops; start it again in a root that exists`);
      gone(err);
      throw err;
    }
    return memory.memory();
  };
  const { serveStdio } = await import('../../mcp/stdio.js');
  const session = await serveStdio({ memory: current, user });
  io.note(noProject ? `mem mcp: ${noProject.message}` : `mem mcp: serving memories of user ${user} from ${config.root} over stdio`);
  const signalled = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const ended = await Promise.race([session.done, signalled, rootGone]);
  await session.close();
  await memory.close();
  if (ended instanceof RootGoneError) throw ended;
}
