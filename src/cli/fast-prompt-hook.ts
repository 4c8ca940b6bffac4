// The fast path of the prompt hook (`mem hook claude-code prompt`, which Claude Code runs before every prompt and
// waits for): the same hook, started without commander and the declarations of every command (bin/mem.js tries it
// first). Only the command line `mem integrate` writes is taken; anything else returns null and the full CLI parses
// and runs it, so a user's typo still gets commander's usage error.
import { hookCommand, type HookOptions } from './commands/hook.js';
import { createIo } from './io.js';

/** The options of `mem hook claude-code prompt [--user <user>]` as commander hands them over, or null for anything else. */
export function parsePromptHookArgs(args: string[]): HookOptions | null {
  const [command, agent, event, ...rest] = args;
  if (command !== 'hook' || agent !== 'claude-code' || event !== 'prompt') return null;
  if (rest.length === 0) return {};
  const [name, value] = rest;
  // A value that looks like an option is left to commander, as `mem search`'s fast path does.
  if (rest.length === 2 && (name === '--user' || name === '-u') && !value!.startsWith('-')) return { user: value! };
  return null;
}

/** Runs the prompt hook for its usual command line: its exit code (always 0), or null when the full CLI must run it. */
export async function fastPromptHook(argv: string[]): Promise<number | null> {
  const opts = parsePromptHookArgs(argv.slice(2));
  if (!opts) return null;
  await hookCommand('claude-code', 'prompt', undefined, opts, createIo(opts));
  return 0;
}
