// The fast path of `mem search`: a plain search asked of a running daemon, without loading commander and the
// declarations of every command (bin/mem.js tries it first). Anything it does not take exactly as commander would
// (an unknown or unusual option, --help, a bad value, no daemon, the daemon's error) returns null, and the full CLI
// runs the command from the start, so behaviour, output and exit codes stay those of src/cli/main.ts.
import { askDaemon } from '../adapters/daemon/client.js';
import type { SearchDegraded, SearchResults } from '../services/search.js';
import { printResults, searchRequest, type SearchOptions, type SearchRequest } from './commands/search.js';
import { cliSettings, configFrom } from './context.js';
import { createIo } from './io.js';
import { checkRoot } from './root-check.js';
import { SEARCH_OPTIONS, namesOf } from './search-options.js';

type Key = keyof SearchOptions;

/** The program's own options: the only ones commander accepts before the command name. */
const GLOBAL_VALUES: Record<string, Key> = { '--root': 'root' };
const GLOBAL_FLAGS: Record<string, [Key, boolean]> = { '--json': ['json', true], '--debug': ['debug', true] };
/** `mem search`'s options, from the one declaration main.ts builds commander's from. */
const VALUES: Record<string, Key> = { ...GLOBAL_VALUES };
const FLAGS: Record<string, [Key, boolean]> = { ...GLOBAL_FLAGS };
const CHOICES: Partial<Record<Key, readonly string[]>> = {};
/** Commander's defaults for the options left out (a negated flag defaults to true). */
const DEFAULTS: Record<string, unknown> = {};
for (const spec of SEARCH_OPTIONS) {
  const { names, takesValue, negated } = namesOf(spec);
  for (const name of names) {
    if (takesValue) VALUES[name] = spec.key;
    else FLAGS[name] = [spec.key, !negated];
  }
  if (spec.choices) CHOICES[spec.key] = spec.choices;
  if (spec.default !== undefined) DEFAULTS[spec.key] = spec.default;
  if (negated) DEFAULTS[spec.key] = true;
}

/**
 * The query and options of `mem [global options] search <query> [options]`, as commander would hand them to the
 * command, or null for anything this parser does not take (the full CLI then parses it, and reports any error).
 */
export function parseSearchArgs(args: string[]): { query: string; opts: SearchOptions } | null {
  const opts: Record<string, unknown> = { ...DEFAULTS };
  const positionals: string[] = [];
  let command = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('-') || arg === '-') {
      if (!command) {
        if (arg !== 'search') return null;
        command = true;
      } else positionals.push(arg);
      continue;
    }
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const flag = (command ? FLAGS : GLOBAL_FLAGS)[name];
    if (flag && inline === undefined) {
      opts[flag[0]] = flag[1];
      continue;
    }
    const key = (command ? VALUES : GLOBAL_VALUES)[name];
    if (!key) return null; // --help, --, -ualice, an unknown option: the full CLI's business
    const value = inline ?? args[++i];
    // A value that looks like an option is left to commander (it would take it as the value; rare enough to not copy).
    if (value === undefined || (inline === undefined && value.startsWith('-'))) return null;
    if (CHOICES[key] && !CHOICES[key].includes(value)) return null;
    opts[key] = value;
  }
  return command && positionals.length === 1 ? { query: positionals[0]!, opts: opts as unknown as SearchOptions } : null;
}

/** Runs a plain `mem search` through the running daemon: its exit code (0), or null when the full CLI must run it. */
export async function fastSearch(argv: string[]): Promise<number | null> {
  const parsed = parseSearchArgs(argv.slice(2));
  if (!parsed) return null;
  const { query, opts } = parsed;
  let request: SearchRequest;
  let response: Awaited<ReturnType<typeof askDaemon>>;
  try {
    if (!cliSettings().daemon) return null;
    request = searchRequest(query, opts);
    const config = configFrom(opts);
    checkRoot(config.root, 'read');
    response = await askDaemon(config, 'search', request.input);
  } catch {
    return null; // a usage or configuration error, or a root that is not one: the full CLI reports it
  }
  // No daemon, or its error: the full CLI asks again (starting one, or reporting the error as it always has).
  if (!response?.ok) return null;
  const results = response.results as SearchResults;
  if (response.degraded) results.degraded = response.degraded as SearchDegraded;
  await printResults(results, request, opts, createIo(opts));
  return 0;
}
