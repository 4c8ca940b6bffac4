// The daemon's answer to one request line: ping, stop and release; a search in a root; an index call of a `mem`
// process on a root already open. Anything it cannot serve is declined, and the client then works in its own process.
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';

import { PROTOCOL_VERSION, configKey, type DaemonResponse, type DaemonTarget } from '../adapters/daemon/protocol.js';
import { EmbeddingError, IndexUnavailableError, MemError, errorMessage } from '../errors.js';
import type { Memory } from '../services/facade.js';
import type { SearchInput, SearchResult } from '../services/search.js';
import { malformed } from './framing.js';
import { runIndexCall, type ServedIndex } from './index-requests.js';
import type { OpenRoots } from './open-roots.js';
import { MAX_REQUEST_BYTES, parseIndexCall, parseRequest, parseSearchInput, type DaemonSearch } from './request.js';
import type { WarmUpQueue } from './warm-up.js';

export interface Dispatch {
  target: DaemonTarget;
  roots: OpenRoots;
  warmUp: WarmUpQueue;
  onLog: (line: string) => void;
  /** The index of an open root's memory, for index calls of `mem` processes (none: every index call is declined). */
  indexOf?: (memory: Memory) => ServedIndex | undefined;
  /** Ends the daemon (once this answer is sent). */
  stop: () => void;
  /** A client's work: the daemon's idle time starts again. */
  rearm: () => void;
}

/** A request that failed: the error's code and exit code travel to the client, which exits as it would itself. */
function failure(d: Dispatch, err: unknown, serversLost: boolean): DaemonResponse {
  // Lost the shared servers (stopped or crashed): hand the request back and make way for a fresh daemon.
  if (serversLost) {
    setImmediate(d.stop);
    return { ok: false, declined: true };
  }
  const e = err instanceof MemError ? err : null;
  return { ok: false, error: { code: e?.code ?? 'INTERNAL', message: errorMessage(err), exitCode: e?.exitCode ?? 1 } };
}

/** The results' context block as a prompt hook hands it to its agent: a secret in a memory masked, as in all model input. */
async function contextBlock(results: SearchResult[], search: SearchInput, wanted: NonNullable<DaemonSearch['context']>): Promise<string> {
  const { maskedContext } = await import('../services/retrieval/masked-context.js');
  const label = {
    query: search.query,
    ...(wanted.about === undefined ? {} : { about: wanted.about }),
    ...(wanted.attributes ? { attributes: wanted.attributes } : {}),
  };
  return maskedContext(results, search.user!, wanted.tokens, label);
}

async function search(d: Dispatch, root: string, { search: input, context }: DaemonSearch): Promise<DaemonResponse> {
  const stale = d.roots.replaced(root);
  if (stale) {
    // Searches still running on the old opening finish there; this one goes to the caller's own process meanwhile.
    if (stale.busy > 0) return { ok: false, declined: true };
    await d.roots.close(root, 'replaced on disk (another root id)');
  }
  const opened = d.roots.memoryOf(root, input.user);
  d.warmUp.searchStarted(root, input.user);
  opened.busy++;
  const started = Date.now();
  try {
    // The user scope arrives from the CLI process that parsed the caller's own flags and environment.
    const results = await (await opened.memory).search(input);
    // The daemon's own share of a `mem search` (the rest is the client's start-up and the socket): the bench reads it.
    d.onLog(`search in ${root} (${Date.now() - started} ms)`);
    const block = context && (await contextBlock(results, input, context));
    return { ok: true, results, ...(results.degraded ? { degraded: results.degraded } : {}), ...(block === undefined ? {} : { context: block }) };
  } catch (err) {
    return failure(d, err, err instanceof IndexUnavailableError || err instanceof EmbeddingError);
  } finally {
    opened.busy--;
    opened.usedAt = Date.now();
    d.warmUp.searchEnded(root, input.user);
  }
}

/**
 * One index call of a `mem` process, on a root this daemon has open already, whose index is the caller's (same
 * server and collection): a call never opens a root nor waits for one opening; otherwise it is declined and the
 * caller uses its own client. The caller holds the root's write lock; the answer comes once the index acknowledged.
 */
async function indexCall(d: Dispatch, root: string, input: unknown): Promise<DaemonResponse> {
  const call = parseIndexCall(input);
  if ('invalid' in call) return malformed(call.invalid);
  const opened = d.roots.get(root);
  const index = opened?.ready ? d.indexOf?.(opened.ready) : undefined;
  if (!opened || !index || index.location !== call.location) return { ok: false, declined: true };
  opened.busy++;
  opened.usedAt = Date.now();
  // One line per call, so that a write through the daemon can be told from one made by its own process.
  const count = Array.isArray(call.args[0]) ? ` (${call.args[0].length})` : '';
  const started = Date.now();
  try {
    const results = (await runIndexCall(index, call)) ?? null;
    d.onLog(`index ${call.method}${count} for ${root} (${Date.now() - started} ms)`);
    return { ok: true, results };
  } catch (err) {
    d.onLog(`index ${call.method}${count} for ${root} failed (${Date.now() - started} ms): ${errorMessage(err)}`);
    return failure(d, err, err instanceof IndexUnavailableError);
  } finally {
    opened.busy--;
    opened.usedAt = Date.now();
  }
}

/** The answer to each request line of the daemon serving `d.target`'s configuration. */
export function dispatcher(d: Dispatch): (line: string) => Promise<DaemonResponse> {
  const key = configKey(d.target);
  return async (line) => {
    const request = parseRequest(line);
    if ('invalid' in request) return malformed(request.invalid);
    if (request.version !== PROTOCOL_VERSION) return { ok: false, declined: true };
    // Ping and stop answer anyone who can open the socket (only this OS user); searches need the same settings.
    if (request.op === 'ping') {
      return {
        ok: true,
        pid: process.pid,
        roots: d.roots.paths().sort(),
        serverHome: d.target.serverHome,
        warming: d.warmUp.remaining(),
        identities: d.roots.identities(),
      };
    }
    if (request.op === 'stop') {
      setImmediate(d.stop);
      return { ok: true, pid: process.pid };
    }
    if (request.configKey !== key) return { ok: false, declined: true };
    // Only the work of its clients keeps the daemon up: pings (`mem server status`, `stop --all` of any home) do not.
    d.rearm();
    // The root is the client's, resolved by its configuration; one that is not absolute or not on disk is left to it.
    const root = request.root;
    if (root === undefined || !isAbsolute(root)) return malformed('malformed daemon request: root: an absolute path is required');
    if (request.op === 'release') return { ok: true, pid: process.pid, released: await d.roots.close(root, '`mem server stop`') };
    if (!existsSync(root)) return { ok: false, declined: true };
    if (request.op === 'index') return indexCall(d, root, request.input);
    // Only an index call carries rows: any other request stays within the search's bound.
    if (line.length > MAX_REQUEST_BYTES) return malformed('daemon request too long');
    const input = parseSearchInput(request.input);
    if ('invalid' in input) return malformed(input.invalid);
    return search(d, root, input);
  };
}
