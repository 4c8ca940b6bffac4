// `mem watch`: keep the index in step with hand edits until SIGINT/SIGTERM; one line (or JSON line) per sync.
import { readFile } from 'node:fs/promises';

import { EmbeddingError, IndexUnavailableError, MemError, RootGoneError, errorMessage } from '../../errors.js';
import type { WatchSyncEvent } from '../../services/watch.js';
import { cliSettings, configFrom } from '../context.js';
import type { GlobalOptions, Io } from '../io.js';
import { parsePositiveInt } from './parse-options.js';

export interface WatchCommandOptions extends GlobalOptions {
  debounce: string;
  purgeDelay: string;
}

function describe(e: WatchSyncEvent): string {
  const what = e.paths === 'all' ? 'all files' : e.paths.length <= 3 ? e.paths.join(', ') : `${e.paths.slice(0, 3).join(', ')} (+${e.paths.length - 3} more)`;
  const r = e.report;
  const head = `${e.at.slice(11, 19)} ${e.initial ? 'initial sync' : 'synced'} ${what}: embedded ${r.embedded}, upserted ${r.upserted}, deleted ${r.deleted} (${e.ms} ms)`;
  return [head, ...r.errors.map((x) => `  error: ${x.path}:${x.line}: ${x.message}`)].join('\n');
}

export async function watchCommand(opts: WatchCommandOptions, io: Io): Promise<void> {
  const debounceMs = parsePositiveInt(opts.debounce, '--debounce', 60_000);
  const purgeDelayMs = parsePositiveInt(opts.purgeDelay, '--purge-delay', 3_600_000);
  const config = configFrom(opts);
  const { openMemory, stateLayoutOf } = await import('../../open-memory.js');
  const memory = await openMemory(config, { onLog: (line) => io.note(line), indexThroughDaemon: cliSettings().daemon });
  // The root's id names its index: one deleted or replaced under the watch (`git clean -fdx` removes the ignored
  // `.mem/`) means the next command makes another index, and this watch would keep writing to one nobody reads.
  const idFile = stateLayoutOf(config).rootId;
  const rootId = () =>
    readFile(idFile, 'utf8').then(
      (t) => t.trim(),
      () => '',
    );
  const openedId = await rootId();
  let replaced = false;
  let fatal: MemError | undefined;
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  try {
    const watching = await memory.watch({
      debounceMs,
      purgeDelayMs,
      onSync: (e) => io.result({ event: 'sync', at: e.at, initial: e.initial, paths: e.paths, ms: e.ms, ...e.report }, () => describe(e)),
      onPurge: (e) =>
        io.result(
          { event: 'purge', at: e.at, ms: e.ms, ...e.purge },
          () => `${e.at.slice(11, 19)} deleted text purged from .mem/ (index ${e.purge.index}, ${e.purge.cachedVectorsRemoved} cached vectors) (${e.ms} ms)`,
        ),
      beforeWrite: async () => {
        if (!openedId || (await rootId()) === openedId) return;
        replaced = true;
        throw new MemError(
          `${idFile} was deleted or replaced since this watch started (git clean -fdx?): the root's index is another one now; nothing synced or purged, start \`mem watch\` again`,
        );
      },
      onError: (err, paths) => {
        const message = errorMessage(err);
        io.result(
          { event: 'error', paths, error: { code: err instanceof MemError ? err.code : 'INTERNAL', message } },
          () => `sync failed (will retry): ${message}`,
        );
        // Lost servers do not come back on their own port, nor a replaced root id: stop, and let the caller restart the
        // watch. A root deleted or moved away has nothing left to watch.
        if (replaced || err instanceof IndexUnavailableError || err instanceof EmbeddingError || err instanceof RootGoneError) {
          fatal = new MemError(`stopped watching: ${message}`);
          stop();
        }
      },
    });
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    io.note(`watching ${config.root} (Ctrl-C to stop)`);
    await stopped;
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await watching.close();
  } finally {
    await memory.close();
  }
  if (fatal) throw fatal;
}
