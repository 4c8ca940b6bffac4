// Reads configuration for a CLI command and opens the memory root (the CLI's only route to the adapters).
import { cliSettingsFromEnvironment, configFromEnvironment, type CliSettings, type MemConfig } from '../config.js';
import type { Memory } from '../services/facade.js';
import type { GlobalOptions, Io } from './io.js';

export function configFrom(opts: GlobalOptions): MemConfig {
  return configFromEnvironment(opts.root ? { root: opts.root } : {});
}

/** The CLI's own settings: the acting user ($MEM_USER) and whether searches use the daemon. */
export function cliSettings(): CliSettings {
  return cliSettingsFromEnvironment();
}

/** Runs `fn` with an open memory and always closes it; `prepareIndex`: `fn` syncs (see OpenOptions.prepareIndex). */
export async function withMemory<T>(opts: GlobalOptions, io: Io, fn: (memory: Memory) => Promise<T>, how: { prepareIndex?: boolean } = {}): Promise<T> {
  // Loaded on demand: a search answered by the daemon never pays for the parser, chunker and SDKs.
  const { openMemory } = await import('../open-memory.js');
  // MEM_DAEMON=off: no daemon, for the index's small calls either (adapters/daemon/daemon-index.ts).
  const memory = await openMemory(configFrom(opts), { onLog: (line) => io.note(line), indexThroughDaemon: cliSettings().daemon, ...how });
  try {
    return await fn(memory);
  } finally {
    await memory.close();
  }
}
