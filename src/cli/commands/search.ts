// `mem search`: a user's eligible memories for a query, as text, JSON or a prompt-ready context block.
import { DaemonError, UsageError } from '../../errors.js';
import { assertUserId } from '../../memory/ids.js';
import type { SearchDegraded, SearchInput, SearchResult, SearchResults } from '../../services/search.js';
import { cliSettings, configFrom, withMemory } from '../context.js';
import { terminalSafe, type GlobalOptions, type Io } from '../io.js';
import { actingUser, parseList, parsePositiveInt, parseTypes } from './parse-options.js';

export interface SearchOptions extends GlobalOptions {
  user?: string;
  allUsers?: boolean;
  type?: string;
  tags?: string;
  k: string;
  mode?: 'hybrid' | 'dense' | 'bm25';
  fusion?: 'rrf' | 'weighted';
  rescore?: boolean;
  format?: 'text' | 'json' | 'context';
  budget: string;
  explain?: boolean;
  history?: boolean;
}

const f = (n: number | undefined) => (n === undefined ? '-' : n.toFixed(3));

function formatResults(results: SearchResult[], explain: boolean): string {
  if (results.length === 0) return 'no matching memories';
  return results
    .map((r, i) => {
      const excerpt = r.content.replace(/\s+/g, ' ').trim();
      const short = excerpt.length > 240 ? `${excerpt.slice(0, 237)}...` : excerpt;
      const marker = r.status === 'active' ? '' : `, ${r.status.toUpperCase()}${r.replacedBy ? ` by ${r.replacedBy}` : ''}`;
      const lines = [
        `${i + 1}. ${r.id}  [${r.type}, ${r.created.slice(0, 10)}${marker}, score ${r.score.toFixed(3)}]`,
        `   ${short}`,
        `   ${r.path}:${r.lines[0]}`,
      ];
      if (explain) {
        const s = r.scores;
        lines.push(
          `   relevance ${f(s.relevance)} (dense ${f(s.dense)}, bm25 ${f(s.bm25)}, window ${f(s.window)}), recency ${f(s.recency)}, importance ${f(s.importance)}`,
        );
        lines.push(`   eligible: ${r.eligibility}`);
      }
      return lines.join('\n');
    })
    .join('\n');
}

/**
 * Through the search daemon when one runs (one for every root searched under these settings: no SDK start-up in
 * this process); otherwise in-process, then a daemon is started in the background for the next search. The request
 * names this root and carries the user scope parsed here; MEM_DAEMON=off disables it.
 */
async function searchFast(opts: SearchOptions, io: Io, input: SearchInput): Promise<SearchResults> {
  if (!cliSettings().daemon) return withMemory(opts, io, (memory) => memory.search(input));
  const config = configFrom(opts);
  const { askDaemon, startDaemon } = await import('../../adapters/daemon/client.js');
  const response = await askDaemon(config, 'search', input);
  if (response?.ok) {
    const results = response.results as SearchResults;
    if (response.degraded) results.degraded = response.degraded as SearchDegraded;
    return results;
  }
  if (response && !response.ok && 'error' in response) throw new DaemonError(response.error);
  const results = await withMemory(opts, io, (memory) => memory.search(input));
  const started = startDaemon(config, input.user);
  // Recorded at once: a `mem server stop` before its socket answers must still find it.
  if (started) await (await import('../../server-control.js')).recordDaemonStart(config, started.pid, started.socket).catch(() => undefined);
  return results;
}

/** What a `mem search` asks for, checked: the use case's input, the output format and its budget. */
export interface SearchRequest {
  input: SearchInput;
  format: 'text' | 'json' | 'context';
  budget: number;
}

/** The request of the command's query and options, or a usage error (before anything starts). */
export function searchRequest(query: string, opts: SearchOptions): SearchRequest {
  // Both at once is ambiguous: searching everyone when one user was named would widen the scope silently.
  if (opts.allUsers && opts.user !== undefined) throw new UsageError('give either --user or --all-users, not both');
  const user = opts.allUsers ? undefined : actingUser(opts.user);
  // Checked before anything starts: a malformed user id is a usage error, not a reason to start servers.
  if (user !== undefined) assertUserId(user);
  const types = parseTypes(opts.type);
  const format = opts.json ? 'json' : (opts.format ?? 'text');
  const budget = parsePositiveInt(opts.budget, '--budget', 1_000_000);
  if (format === 'context' && !user) throw new UsageError('--format context needs one --user');
  const input: SearchInput = {
    query,
    k: parsePositiveInt(opts.k, '-k', 200),
    ...(user ? { user } : {}),
    ...(opts.allUsers ? { allUsers: true } : {}),
    ...(types ? { types } : {}),
    ...(opts.tags ? { tags: parseList(opts.tags) } : {}),
    ...(opts.mode ? { mode: opts.mode } : {}),
    ...(opts.fusion ? { fusion: opts.fusion } : {}),
    ...(opts.rescore === false ? { rescore: false } : {}),
    ...(opts.history ? { history: true } : {}),
  };
  return { input, format, budget };
}

/** Prints the results in the request's format (the fast path, cli/fast-search.ts, prints through this too). */
export async function printResults(results: SearchResults, request: SearchRequest, opts: SearchOptions, io: Io): Promise<void> {
  // Results all the same, ranked without what did not answer: said on stderr, and in --json as `degraded`.
  if (results.degraded) io.note(`warning: ${results.degraded.second}`);
  if (request.format === 'context') {
    // Loaded only for this format: every module costs the daemon's fast path its load time.
    const { formatContext } = await import('../../services/retrieval/context.js');
    const { maskSecrets } = await import('../../memory/secrets.js');
    const block = formatContext(results, request.input.user!, request.budget, { query: request.input.query });
    // A prompt block goes to a model's provider: a secret in a memory is masked there, as in hook and MCP output.
    process.stdout.write(`${terminalSafe(await maskSecrets(block.text))}\n`);
    return;
  }
  if (request.format === 'json') {
    process.stdout.write(`${JSON.stringify({ results, ...(results.degraded ? { degraded: results.degraded } : {}) })}\n`);
    return;
  }
  io.result({ results }, () => formatResults(results, Boolean(opts.explain)));
}

export async function searchCommand(query: string, opts: SearchOptions, io: Io): Promise<void> {
  const request = searchRequest(query, opts);
  await printResults(await searchFast(opts, io, request.input), request, opts, io);
}
