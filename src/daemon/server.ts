// The search daemon (`mem daemon`): one per user and servers' home, serving every root searched under its
// configuration. It keeps an open Memory per root (SDK loaded, servers connected, model and index warm) and answers
// searches over its Unix socket, so `mem search` skips seconds of start-up. A root unused for a while (or deleted) is
// closed; the daemon exits after a quiet period, or on SIGTERM/SIGINT.
import { chmodSync, existsSync, rmSync, statSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';

import { EmbeddingError, IndexUnavailableError, MemError, errorMessage } from '../errors.js';
import type { Memory } from '../services/facade.js';
import type { VectorIndex } from '../services/ports.js';
import type { SearchInput } from '../services/search.js';
import { runIndexCall } from './index-requests.js';
import { PROTOCOL_VERSION, configKey, socketPath, type DaemonResponse, type DaemonTarget } from '../adapters/daemon/protocol.js';
import { MAX_INDEX_REQUEST_BYTES, MAX_REQUEST_BYTES, parseIndexCall, parseRequest, parseSearchInput } from './request.js';
import { WarmUpQueue, rootUsers, warmUpSearch } from './warm-up.js';

export interface DaemonOptions {
  /** No request for this long: the daemon exits. */
  idleMs: number;
  /** A root not searched for this long is closed (opened again by its next search). */
  rootIdleMs: number;
  /** How often roots are checked for idleness and for being gone from disk. */
  checkMs?: number;
  onLog: (line: string) => void;
  /** Roots opened as soon as the daemon listens (the root of the search that started it): its next search is warm. */
  warm?: string[];
  /** The user of the search that started the daemon: warmed first in the roots of `warm`. */
  warmUser?: string;
  /** The users a root's warm-up searches (default: its user folders, rootUsers). */
  usersOf?: (root: string) => string[];
  /** A warm-up search of another user starts only after this long without a search (default WARM_UP_QUIET_MS). */
  warmQuietMs?: number;
  /** Called after a root gone from disk was closed (the CLI drops the collections of deleted roots). */
  onRootGone?: (root: string) => Promise<void>;
  /** Called once per root before it is first opened (the CLI stops that root's daemon of the previous version). */
  onFirstUse?: (root: string) => Promise<void>;
  /** The index of an open root's memory, for index calls of `mem` processes (none: every index call is declined). */
  indexOf?: (memory: Memory) => VectorIndex | undefined;
  /** A file of the daemon's own code (default: this module's): rewritten by a build or an upgrade, the daemon exits. */
  codeFile?: string;
  /**
   * The root's identity on disk now (its root id, which names its collection). A root whose `.mem/` was removed, or
   * another folder put at its path, has another: its open memory searches an index nobody writes any more.
   */
  identityOf?: (root: string) => string;
}

/** Opens the memory of a root under the daemon's configuration (the caller's composition). */
export type OpenRoot = (root: string) => Promise<Memory>;

/**
 * The quiet time before a warm-up step: longer than the pause between two searches of a script or a hook (the next
 * `mem search` connects ~100-200 ms after the last answered), so a warm-up rarely runs beside a search.
 */
export const WARM_UP_QUIET_MS = 500;

const malformed = (message: string): DaemonResponse => ({ ok: false, error: { code: 'USAGE', message, exitCode: 2 } });

/** The modification time of a file of the daemon's code ('' when it is gone, which counts as a change too). */
function codeVersion(file: string): string {
  try {
    return String(statSync(file).mtimeMs);
  } catch {
    return '';
  }
}

function socketAlive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.on('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

interface OpenedRoot {
  memory: Promise<Memory>;
  usedAt: number;
  /** Searches running on it: a root is not closed under them. */
  busy: number;
  /** The memory once opened: index calls go only to a root that is. */
  ready?: Memory;
  /** The root's identity once opened (DaemonOptions.identityOf). */
  identity?: string;
}

/** Serves the roots searched under `target`'s configuration (each opened with `open`, all closed before this returns) until stopped or idle. */
export async function runDaemon(open: OpenRoot, target: DaemonTarget, options: DaemonOptions): Promise<void> {
  const key = configKey(target);
  const path = socketPath(target);
  const roots = new Map<string, OpenedRoot>();
  const seen = new Set<string>();
  // One user at a time, between searches: each user's first search then finds its partition's index built.
  const warmUp = new WarmUpQueue({
    quietMs: options.warmQuietMs ?? WARM_UP_QUIET_MS,
    warm: async (root, user, first) => {
      const opened = roots.get(root);
      // A root deleted since it was opened is not searched: that would write its state folder back.
      if (!opened || !existsSync(root)) return;
      const started = Date.now();
      await (await opened.memory).search(warmUpSearch(user, first));
      options.onLog(`warmed up ${user} in ${root} (${Date.now() - started} ms)`);
    },
  });
  const usersOf = options.usersOf ?? ((root: string) => rootUsers(root));

  let idle: NodeJS.Timeout | undefined;
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const rearm = () => {
    clearTimeout(idle);
    idle = setTimeout(stop, options.idleMs);
  };

  const close = async (root: string, why: string): Promise<boolean> => {
    const opened = roots.get(root);
    if (!opened) return false;
    roots.delete(root);
    warmUp.drop(root);
    options.onLog(`closing ${root}: ${why}`);
    await opened.memory.then((m) => m.close()).catch(() => undefined);
    return true;
  };

  /** The root's open memory, opened (and queued for warm-up, `user` first) if it is not. */
  const memoryOf = (root: string, user?: string): OpenedRoot => {
    let opened = roots.get(root);
    if (!opened) {
      const first = seen.has(root) ? Promise.resolve() : (options.onFirstUse?.(root) ?? Promise.resolve()).catch(() => undefined);
      seen.add(root);
      const entry: OpenedRoot = { memory: first.then(() => open(root)), usedAt: Date.now(), busy: 0 };
      entry.memory
        .then((m) => {
          entry.ready = m;
          entry.identity = options.identityOf?.(root);
        })
        .catch(() => undefined);
      opened = entry;
      // A root that failed to open is not kept: its next search tries again.
      opened.memory.catch(() => roots.get(root) === opened && roots.delete(root));
      roots.set(root, opened);
      // Then, in the background, one search per user, so that no user's first search pays the index's lazy loads.
      warmUp.add(root, usersOf(root), user);
      options.onLog(`opening ${root}`);
    }
    opened.usedAt = Date.now();
    return opened;
  };

  const search = async (root: string, input: SearchInput): Promise<DaemonResponse> => {
    const held = roots.get(root);
    if (held?.identity !== undefined && options.identityOf && options.identityOf(root) !== held.identity) {
      // Searches still running on the old opening finish there; this one goes to the caller's own process meanwhile.
      if (held.busy > 0) return { ok: false, declined: true };
      await close(root, 'replaced on disk (another root id)');
    }
    const opened = memoryOf(root, input.user);
    warmUp.searchStarted(root, input.user);
    opened.busy++;
    const started = Date.now();
    try {
      // The user scope arrives from the CLI process that parsed the caller's own flags and environment.
      const results = await (await opened.memory).search(input);
      // The daemon's own share of a `mem search` (the rest is the client's start-up and the socket): the bench reads it.
      options.onLog(`search in ${root} (${Date.now() - started} ms)`);
      return { ok: true, results, ...(results.degraded ? { degraded: results.degraded } : {}) };
    } catch (err) {
      // Lost the shared servers (stopped or crashed): hand this search back and make way for a fresh daemon.
      if (err instanceof IndexUnavailableError || err instanceof EmbeddingError) {
        setImmediate(stop);
        return { ok: false, declined: true };
      }
      const e = err instanceof MemError ? err : null;
      return { ok: false, error: { code: e?.code ?? 'INTERNAL', message: errorMessage(err), exitCode: e?.exitCode ?? 1 } };
    } finally {
      opened.busy--;
      opened.usedAt = Date.now();
      warmUp.searchEnded(root, input.user);
    }
  };

  /**
   * One index call of a `mem` process, on a root this daemon has open already, whose index is the caller's (same
   * server and collection): a call never opens a root nor waits for one opening; otherwise it is declined and the
   * caller uses its own client. The caller holds the root's write lock; the answer comes once the index acknowledged.
   */
  const indexCall = async (root: string, input: unknown): Promise<DaemonResponse> => {
    const call = parseIndexCall(input);
    if ('invalid' in call) return malformed(call.invalid);
    const opened = roots.get(root);
    const index = opened?.ready ? options.indexOf?.(opened.ready) : undefined;
    if (!opened || !index || index.location !== call.location) return { ok: false, declined: true };
    opened.busy++;
    opened.usedAt = Date.now();
    // One line per call, so that a write through the daemon can be told from one made by its own process.
    const count = Array.isArray(call.args[0]) ? ` (${call.args[0].length})` : '';
    const started = Date.now();
    try {
      const results = (await runIndexCall(index, call)) ?? null;
      options.onLog(`index ${call.method}${count} for ${root} (${Date.now() - started} ms)`);
      return { ok: true, results };
    } catch (err) {
      options.onLog(`index ${call.method}${count} for ${root} failed (${Date.now() - started} ms): ${errorMessage(err)}`);
      if (err instanceof IndexUnavailableError) {
        setImmediate(stop);
        return { ok: false, declined: true };
      }
      const e = err instanceof MemError ? err : null;
      return { ok: false, error: { code: e?.code ?? 'INTERNAL', message: errorMessage(err), exitCode: e?.exitCode ?? 1 } };
    } finally {
      opened.busy--;
      opened.usedAt = Date.now();
    }
  };

  const answer = async (line: string): Promise<DaemonResponse> => {
    const request = parseRequest(line);
    if ('invalid' in request) return malformed(request.invalid);
    if (request.version !== PROTOCOL_VERSION) return { ok: false, declined: true };
    // Ping and stop answer anyone who can open the socket (only this OS user); searches need the same settings.
    if (request.op === 'ping') {
      const identities = Object.fromEntries([...roots].flatMap(([root, o]) => (o.identity === undefined ? [] : [[root, o.identity]])));
      return { ok: true, pid: process.pid, roots: [...roots.keys()].sort(), serverHome: target.serverHome, warming: warmUp.remaining(), identities };
    }
    if (request.op === 'stop') {
      setImmediate(stop);
      return { ok: true, pid: process.pid };
    }
    if (request.configKey !== key) return { ok: false, declined: true };
    // Only the work of its clients keeps the daemon up: pings (`mem server status`, `stop --all` of any home) do not.
    rearm();
    // The root is the client's, resolved by its configuration; one that is not absolute or not on disk is left to it.
    const root = request.root;
    if (root === undefined || !isAbsolute(root)) return malformed('malformed daemon request: root: an absolute path is required');
    if (request.op === 'release') return { ok: true, pid: process.pid, released: await close(root, '`mem server stop`') };
    if (!existsSync(root)) return { ok: false, declined: true };
    if (request.op === 'index') return indexCall(root, request.input);
    // Only an index call carries rows: any other request stays within the search's bound.
    if (line.length > MAX_REQUEST_BYTES) return malformed('daemon request too long');
    const input = parseSearchInput(request.input);
    if ('invalid' in input) return malformed(input.invalid);
    return search(root, input);
  };

  // allowHalfOpen: the client ends its side after the request; the answer still has to go back.
  const server = createServer({ allowHalfOpen: true }, (socket: Socket) => {
    // Bytes, decoded once whole: a character split between two reads must not turn into U+FFFD (rows carry any text).
    const chunks: Buffer[] = [];
    let length = 0;
    let answered = false; // one request per connection: anything after it is ignored
    socket.on('data', (chunk: Buffer) => {
      if (answered) return;
      const newlineAt = chunk.indexOf(0x0a);
      chunks.push(chunk);
      length += chunk.length;
      if (newlineAt === -1 && length <= MAX_INDEX_REQUEST_BYTES) return;
      answered = true;
      const newline = newlineAt === -1 ? -1 : length - chunk.length + newlineAt;
      if (newline === -1 || newline > MAX_INDEX_REQUEST_BYTES) {
        socket.end(JSON.stringify(malformed('daemon request too long')));
        return;
      }
      void answer(Buffer.concat(chunks, length).subarray(0, newline).toString('utf8')).then((response) => socket.end(JSON.stringify(response)));
    });
    // The client ended without a whole line: no request will come.
    socket.on('end', () => {
      if (answered) return;
      answered = true;
      socket.end(JSON.stringify(malformed(length > MAX_REQUEST_BYTES ? 'daemon request too long' : 'malformed daemon request: no newline')));
    });
    socket.on('error', () => undefined);
  });

  // Only one daemon per configuration: if the socket answers, another daemon owns it.
  const taken = await new Promise<boolean>((resolve) => {
    const probe = createServer().listen(path);
    probe.on('error', () => resolve(true));
    probe.on('listening', () => probe.close(() => resolve(false)));
  });
  if (taken) {
    if (await socketAlive(path)) return; // another daemon serves these roots
    rmSync(path, { force: true }); // a stale socket left by a killed daemon
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  options.onLog(`memd listening on ${path} (pid ${process.pid})`);
  rearm();
  for (const root of options.warm ?? []) if (isAbsolute(root) && existsSync(root)) memoryOf(root, options.warmUser).memory.catch(() => undefined);
  // A deleted socket leaves nobody to serve; a deleted root, or one unused for a while, is closed; and once every root
  // it has served is gone from disk, nobody is left to serve either (stop within a minute, not the idle time).
  // A daemon whose code was rebuilt (`git pull && npm install`) exits too: searches reset its idle time, so an agent
  // searching every few minutes would otherwise keep the old code answering for good.
  const codeFile = options.codeFile ?? fileURLToPath(import.meta.url);
  // What the daemon does after closing a deleted root, awaited before it exits.
  const cleanUps = new Set<Promise<unknown>>();
  const goneSeen = new Set<string>();
  const builtAt = codeVersion(codeFile);
  const watch = setInterval(() => {
    if (!existsSync(path)) return stop();
    if (codeVersion(codeFile) !== builtAt) {
      options.onLog(`its code changed on disk (${codeFile}: a rebuild or an upgrade): exiting, the next search starts the new one`);
      return stop();
    }
    const now = Date.now();
    for (const [root, opened] of roots) {
      if (existsSync(root) && opened.busy === 0 && now - opened.usedAt > options.rootIdleMs) void close(root, 'idle');
    }
    // The roots it was started for count as served: one deleted before the daemon listened was never opened, and the
    // daemon would otherwise wait for its idle time holding nothing.
    const served = [...new Set([...seen, ...(options.warm ?? []).filter((root) => isAbsolute(root))])];
    // A served root gone from disk, open or not (one deleted as it opened failed to open): closed, then cleaned up once.
    for (const root of served) {
      if (existsSync(root)) goneSeen.delete(root);
      else if (!goneSeen.has(root)) {
        goneSeen.add(root);
        cleanUps.add(close(root, 'gone from disk').then(() => options.onRootGone?.(root)));
      }
    }
    if (served.length > 0 && served.every((root) => !existsSync(root))) {
      options.onLog('every root served is gone from disk');
      return stop();
    }
  }, options.checkMs ?? 10_000);
  watch.unref();
  process.once('SIGTERM', () => stop());
  process.once('SIGINT', () => stop());
  await stopped;
  warmUp.stop();
  clearTimeout(idle);
  clearInterval(watch);
  server.close();
  rmSync(path, { force: true });
  await Promise.all([...roots.keys()].map((root) => close(root, 'daemon stopping')));
  await Promise.allSettled(cleanUps);
}
