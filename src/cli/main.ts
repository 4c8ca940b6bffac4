// The `mem` command line: declares commands and options, hands each to its handler, and maps every
// error to an exit code in one place (0 ok, 1 failure, 2 usage).
import { Command, CommanderError, Option } from 'commander';

import { InternalError, MemError, ReportedFailure, UsageError, errorMessage } from '../errors.js';
import { MEMORY_TYPES } from '../memory/model.js';
import { configFrom } from './context.js';
import { createIo, terminalSafe, type GlobalOptions, type Io } from './io.js';
import { checkRoot, type RootUse } from './root-check.js';
import { SEARCH_OPTIONS } from './search-options.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each handler declares its own argument types.
type Handler = (...args: any[]) => Promise<void>;

// What each command needs of its root; commands not listed (server stop/status, the daemon) are not checked.
const ROOT_USE: Record<string, RootUse> = {
  add: 'create',
  ingest: 'create',
  mcp: 'create',
  setup: 'create',
  'server start': 'create',
  reindex: 'write',
  forget: 'write',
  gc: 'write',
  consolidate: 'write',
  watch: 'write',
  sync: 'write',
  search: 'read',
  show: 'read',
  status: 'read',
  doctor: 'read',
  resolve: 'write',
};

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

// Commander's error for a missing command (`mem`, `mem server`) carries '(outputHelp)', its internal marker, not a message.
function usageMessage(err: CommanderError): string {
  if (err.code === 'commander.help') return 'missing command: the usage printed on stderr lists the commands';
  return err.message.replace(/^error: /, '');
}

function exitCodeOf(err: unknown): number {
  if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
  if (err instanceof MemError) return err.exitCode;
  return 1;
}

// Refused by the file system, not a bug: a read-only or foreign folder under the root or its state.
const PERMISSION_CODES = new Set(['EACCES', 'EPERM', 'EROFS']);

function isPermissionError(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && PERMISSION_CODES.has((err as NodeJS.ErrnoException).code ?? '');
}

function report(err: unknown, io: Io): void {
  if (err instanceof ReportedFailure) {
    if (!io.json) process.stderr.write(`mem: ${terminalSafe(err.message)}\n`);
    return;
  }
  const code = err instanceof MemError ? err.code : isPermissionError(err) ? 'PERMISSION' : 'INTERNAL';
  const message = isPermissionError(err)
    ? `cannot ${err.syscall ?? 'use'} ${err.path ?? 'a file'}: ${err.code === 'EROFS' ? 'read-only file system' : 'permission denied'}`
    : errorMessage(err);
  if (io.json) process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
  else process.stderr.write(`mem: ${terminalSafe(message)}\n`);
  if (io.debug && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  if ((!(err instanceof MemError) && !isPermissionError(err)) || err instanceof InternalError) {
    process.stderr.write('mem: this is a bug in memdir; run again with --debug for the stack\n');
  }
}

export function buildProgram(run: (load: () => Promise<Handler>) => (...args: unknown[]) => Promise<void>): Command {
  const program = new Command('mem')
    .description('Long-term memory for AI agents: Markdown files as the truth, Milvus as the index.')
    .option('--root <dir>', 'memory root (default: $MEM_ROOT, else ./memories)')
    .option('--json', 'print the result as JSON')
    .option('--debug', 'print stack traces on errors')
    // Answered by bin/mem.js before this module loads; declared here so help lists it.
    .option('-V, --version', 'print the version')
    .showHelpAfterError()
    .exitOverride();

  program
    .command('add <text>')
    .description('add a memory, reconciled with similar ones: ADD, UPDATE, SUPERSEDE or NOOP (file + index + git commit)')
    .option('-u, --user <user>', 'whose memory it is (default: $MEM_USER)')
    .addOption(new Option('-t, --type <type>', 'memory type').choices([...MEMORY_TYPES]).default('semantic'))
    .option('-i, --importance <0..1>', 'how much it matters', '0.5')
    .option('--tags <a,b>', 'comma-separated tags')
    .option('--key <slot>', 'the fact slot it fills, e.g. residence (letters, digits, "_", ".", ":" or "-")')
    .option('--source <source>', 'provenance, e.g. user, agent, system')
    .option('--expires <iso-date>', 'no longer eligible after this time')
    .option('--ttl <duration>', 'lifetime such as 12h, 7d, 2w or none (default per type: $MEM_TTL_<TYPE>)')
    .option('--supersedes <id>', 'this memory corrects (replaces) that one')
    .option('--force', 'skip reconciliation: always write a new memory')
    .option('--allow-secrets', 'store the text even if it looks like it contains an API key, private key or password')
    .action(run(() => import('./commands/add.js').then((m) => m.addCommand)));

  const search = program.command('search <query>').description("search one user's active, unexpired memories");
  for (const spec of SEARCH_OPTIONS) {
    const option = new Option(spec.flags, spec.description);
    if (spec.choices) option.choices(spec.choices);
    if (spec.default !== undefined) option.default(spec.default);
    search.addOption(option);
  }
  search.action(run(() => import('./commands/search.js').then((m) => m.searchCommand)));

  program
    .command('show <id>')
    .description('print a memory, its supersede chain, its sources and its git history')
    .option('-u, --user <user>', 'only if it is this user’s memory')
    .action(run(() => import('./commands/show.js').then((m) => m.showCommand)));

  program
    .command('reindex')
    .description('sync the index with the files (only what changed)')
    .option('--rebuild', 'drop the index and rebuild it from the files (cached vectors are reused)')
    .action(run(() => import('./commands/reindex.js').then((m) => m.reindexCommand)));

  program
    .command('forget [ids...]')
    .description('remove memories everywhere: files, index rows, cached vectors, access stats and summaries citing them; one commit')
    .option('-u, --user <user>', 'with ids: only this user; with --all: whose memories to forget')
    .option('--all', 'forget every memory of --user (asks on a terminal; --yes in a script)')
    .option('-q, --query <text>', 'forget what this query finds among --user’s memories (preview; --yes to apply)')
    .option('-k, --k <n>', 'how many query matches to consider', '5')
    .option('-y, --yes', 'apply a --query forget (and confirm --all and --purge-history)')
    .option('--purge-history', 'also rewrite git history so the content is gone from past commits (rewrites every branch)')
    .option('--rewrite-project-history', "allow --purge-history when the root is a folder of a larger repository (rewrites that project's branches)")
    .option('--reason <text>', 'why, recorded in the commit with who and how many (never the forgotten text)')
    .action(run(() => import('./commands/forget.js').then((m) => m.forgetCommand)));

  program
    .command('gc')
    .description('mark memories past their expiry as expired; remove them after the grace period ($MEM_GC_GRACE, 30d)')
    .option('-u, --user <user>', 'only this user')
    .option('--dry-run', 'show what would change')
    .action(run(() => import('./commands/gc.js').then((m) => m.gcCommand)));

  program
    .command('consolidate')
    .description('fold related memories of a user into one summary per group that cites its sources')
    .option('-u, --user <user>', 'whose memories (default: $MEM_USER)')
    .addOption(new Option('-t, --type <type>', 'which memories to fold').choices([...MEMORY_TYPES]).default('episodic'))
    .option('--threshold <0..1>', 'similarity needed to group two memories (default $MEM_CONSOLIDATE_THRESHOLD, 0.88)')
    .option('--dry-run', 'show the groups without writing')
    .action(run(() => import('./commands/consolidate.js').then((m) => m.consolidateCommand)));

  program
    .command('ingest <file>')
    .description("append a conversation (JSON turns or Markdown) to the user's episodic log; with an LLM, store the memories in it")
    .option('-u, --user <user>', 'whose conversation it is (default: $MEM_USER)')
    .addOption(new Option('--format <format>', 'transcript format (default: JSON if it starts with [ or {)').choices(['json', 'markdown']))
    .option('--allow-secrets', 'store the conversation even if it looks like it contains an API key, private key or password')
    .action(run(() => import('./commands/ingest.js').then((m) => m.ingestCommand)));

  program
    .command('sync')
    .description(
      "exchange memories with the root's git remote: commit what is uncommitted, fetch, merge, push, index what came in (a project's memory travels with its own git flow)",
    )
    .action(run(() => import('./commands/sync.js').then((m) => m.syncCommand)));

  program
    .command('watch')
    .description('keep the index in step with edits to the files (runs until Ctrl-C); one line per sync')
    .option('--debounce <ms>', 'quiet time after a change before syncing', '100')
    .option('--purge-delay <ms>', 'quiet time after a deletion or edit before its old text is purged from .mem/', '5000')
    .action(run(() => import('./commands/watch.js').then((m) => m.watchCommand)));

  program
    .command('mcp')
    .description("serve one user's memories to an MCP client over stdio (tools: memory_search, memory_add, memory_get, memory_list, memory_forget)")
    .option('-u, --user <user>', 'the only user the tools can see (default: $MEM_USER)')
    .option('--project', 'serve the project memory of the current folder (<main worktree of its git repository>/memories)')
    .action(run(() => import('./commands/mcp.js').then((m) => m.mcpCommand)));

  program
    .command('integrate <agent>')
    .description('install memdir into a coding agent (claude-code, codex, gemini): hooks that recall and capture, MCP servers, instructions')
    .addOption(new Option('--scope <scope>', 'this project (its worktree) or every project of this user').choices(['project', 'user']).default('project'))
    .option('--uninstall', 'remove exactly what an install wrote (a file memdir alone changed is restored byte for byte)')
    .option('--prompt-recall', 'claude-code: recall memories for every prompt (UserPromptSubmit, 1 s budget; the default)')
    .option('--no-prompt-recall', 'claude-code: no per-prompt recall, only at session start')
    .option('-u, --user <user>', 'whose memories the agent sees (default: $MEM_USER, else your OS user name)')
    .option('--dir <dir>', 'the project folder (default: the current one)')
    .action(run(() => import('./commands/integrate.js').then((m) => m.integrateCommand)));

  program
    .command('hook <agent> <event> [payload]', { hidden: true })
    .description('run an agent hook (input on stdin, or the payload argument): what `mem integrate` installs; always exits 0')
    .option('-u, --user <user>', 'whose memories')
    .option('--payload-file <path>', 'the hook input, from the owner-only file the hook wrote for its background capture')
    .option('--foreground', 'capture in this process instead of a detached one')
    .action(run(() => import('./commands/hook.js').then((m) => m.hookCommand)));

  program
    .command('status')
    .description('files, index, drift between them, and the managed servers')
    .action(run(() => import('./commands/status.js').then((m) => m.statusCommand)));

  program
    .command('doctor')
    .description('check that files, manifest and index agree (missing, stale, orphaned rows, model); exit 1 if not')
    .option('--fix', 'repair what can be repaired (re-sync the affected files, or rebuild for another model)')
    .action(run(() => import('./commands/doctor.js').then((m) => m.doctorCommand)));

  program
    .command('resolve')
    .description("settle the memory files a git merge, rebase or cherry-pick left unmerged, by memdir's rules")
    .action(run(() => import('./commands/resolve.js').then((m) => m.resolveCommand)));

  program
    .command('setup')
    .description('install the embedded runtime (Milvus Lite, local model) and start its servers')
    .action(run(() => import('./commands/server.js').then((m) => m.serverStartCommand)));

  program
    .command('daemon', { hidden: true })
    .description('serve searches for every root over a local socket (started by `mem search`)')
    .option('--warm-user <user>', 'the user whose memories are warmed first (the search that started it)')
    .action(run(() => import('./commands/server.js').then((m) => m.daemonCommand)));

  const server = program.command('server').description('control the local servers of the embedded default (one of each, shared by all roots)');
  server
    .command('start')
    .description('start them (installing the runtime if needed)')
    .action(run(() => import('./commands/server.js').then((m) => m.serverStartCommand)));
  server
    .command('stop')
    .description("stop this root's use of them (they stop when no other root uses them); the search daemon closes it")
    .option('--all', 'stop the shared servers and the search daemon, whatever roots use them')
    .action(run(() => import('./commands/server.js').then((m) => m.serverStopCommand)));
  server
    .command('status')
    .description('show whether they run, and the roots (collections) they serve')
    .action(run(() => import('./commands/server.js').then((m) => m.serverStatusCommand)));
  server
    .command('prune')
    .description("drop the collections of roots gone from disk (deleted or moved away), which hold their memories' text")
    .action(run(() => import('./commands/server.js').then((m) => m.serverPruneCommand)));
  return program;
}

export async function main(argv: string[] = process.argv): Promise<number> {
  let io = createIo({ json: argv.includes('--json'), debug: argv.includes('--debug') });
  const run =
    (load: () => Promise<Handler>) =>
    async (...args: unknown[]) => {
      const command = args[args.length - 1] as Command;
      const opts = command.optsWithGlobals() as GlobalOptions & Record<string, unknown>;
      io = createIo(opts);
      const use = ROOT_USE[commandPath(command)];
      if (use) checkRoot(configFrom(opts).root, use);
      const handler = await load();
      await handler(...args.slice(0, -2), opts, io);
    };
  const program = buildProgram(run);
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander printed the message and the usage on stderr; a script reading --json's stdout gets the error too.
      if (io.json && err.exitCode !== 0) report(new UsageError(usageMessage(err)), io);
      return exitCodeOf(err);
    }
    report(err, io);
    return exitCodeOf(err);
  }
}
