// The search daemon (`mem daemon`): keeps one open Memory (SDK loaded, servers connected, model warm)
// and answers searches over the root's Unix socket, so `mem search` skips seconds of start-up.
// It exits after a quiet period, or on SIGTERM/SIGINT.
import { chmodSync, existsSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';

import type { MemConfig } from '../../config.js';
import { EmbeddingError, IndexUnavailableError, MemError, errorMessage } from '../../errors.js';
import { openMemory } from '../../open-memory.js';
import type { SearchInput } from '../../services/search.js';
import { PROTOCOL_VERSION, configKey, socketPath, type DaemonRequest, type DaemonResponse } from './protocol.js';

export interface DaemonOptions {
  idleMs: number;
  onLog: (line: string) => void;
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

export async function runDaemon(config: MemConfig, options: DaemonOptions): Promise<void> {
  const memory = await openMemory(config, { onLog: options.onLog });
  const key = configKey(config);
  const path = socketPath(config.root);

  let idle: NodeJS.Timeout | undefined;
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const rearm = () => {
    clearTimeout(idle);
    idle = setTimeout(stop, options.idleMs);
  };

  const answer = async (line: string): Promise<DaemonResponse> => {
    let request: DaemonRequest;
    try {
      request = JSON.parse(line) as DaemonRequest;
    } catch {
      return { ok: false, error: { code: 'USAGE', message: 'malformed daemon request', exitCode: 2 } };
    }
    if (request.version !== PROTOCOL_VERSION) return { ok: false, declined: true };
    // Ping and stop answer anyone who can open the socket (only this OS user); searches need the same settings.
    if (request.op === 'ping') return { ok: true, pid: process.pid };
    if (request.op === 'stop') {
      setImmediate(stop);
      return { ok: true, pid: process.pid };
    }
    if (request.configKey !== key) return { ok: false, declined: true };
    try {
      // The user scope arrives from the CLI process that parsed the caller's own flags and environment.
      return { ok: true, results: await memory.search(request.input as SearchInput) };
    } catch (err) {
      // Lost its servers (stopped or crashed): hand this search back and make way for a fresh daemon.
      if (err instanceof IndexUnavailableError || err instanceof EmbeddingError) {
        setImmediate(stop);
        return { ok: false, declined: true };
      }
      const e = err instanceof MemError ? err : null;
      return { ok: false, error: { code: e?.code ?? 'INTERNAL', message: errorMessage(err), exitCode: e?.exitCode ?? 1 } };
    }
  };

  // allowHalfOpen: the client ends its side after the request; the answer still has to go back.
  const server = createServer({ allowHalfOpen: true }, (socket: Socket) => {
    rearm();
    let data = '';
    socket.on('data', (chunk) => {
      data += chunk.toString();
      const newline = data.indexOf('\n');
      if (newline === -1) return;
      void answer(data.slice(0, newline)).then((response) => socket.end(JSON.stringify(response)));
    });
    socket.on('error', () => undefined);
  });

  // Only one daemon per root: if the socket answers, another daemon owns it.
  const taken = await new Promise<boolean>((resolve) => {
    const probe = createServer().listen(path);
    probe.on('error', () => resolve(true));
    probe.on('listening', () => probe.close(() => resolve(false)));
  });
  if (taken) {
    if (await socketAlive(path)) {
      await memory.close(); // another daemon serves this root
      return;
    }
    rmSync(path, { force: true }); // a stale socket left by a killed daemon
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  options.onLog(`memd listening on ${path} (pid ${process.pid})`);
  rearm();
  // A root that was deleted (or a socket removed) has nobody left to serve.
  const watch = setInterval(() => {
    if (!existsSync(path) || !existsSync(config.root)) stop();
  }, 10_000);
  watch.unref();
  process.once('SIGTERM', () => stop());
  process.once('SIGINT', () => stop());
  await stopped;
  clearTimeout(idle);
  clearInterval(watch);
  server.close();
  rmSync(path, { force: true });
  await memory.close();
}
