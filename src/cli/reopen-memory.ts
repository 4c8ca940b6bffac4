// The open memory of a long-lived shell (`mem mcp`), opened again when its servers went away.
import { EmbeddingError, IndexUnavailableError } from '../errors.js';
import type { Memory } from '../services/facade.js';

export interface ReopeningMemory {
  /** The open memory (opened on first use, or again after it lost its servers). */
  memory(): Promise<Memory>;
  close(): Promise<void>;
}

/** The errors of a Milvus Lite or embedding server that stopped: opening again restarts it (on another port). */
const lostServers = (err: unknown) => err instanceof IndexUnavailableError || err instanceof EmbeddingError;

/**
 * A CLI command opens the memory per run, so a shared server that died is restarted by the next command. A session
 * that serves an agent for hours held its first opening: after a Milvus Lite or embedding server died, every tool
 * call failed until the agent restarted it, even once another command had restarted the servers. Here a call that
 * fails for that reason drops the opening, and the next call opens anew; an open that failed is tried again too.
 */
export function reopeningMemory(open: () => Promise<Memory>): ReopeningMemory {
  let current: Promise<Memory> | undefined;
  const drop = (opening: Promise<Memory>) => {
    if (current !== opening) return; // another call already dropped it
    current = undefined;
    void opening.then((m) => m.close()).catch(() => undefined);
  };
  const guarded = (memory: Memory, opening: Promise<Memory>): Memory =>
    new Proxy(memory, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function' || prop === 'close') return value;
        return async (...args: unknown[]) => {
          try {
            return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          } catch (err) {
            if (lostServers(err)) drop(opening);
            throw err;
          }
        };
      },
    });
  return {
    async memory() {
      const opening = (current ??= open());
      try {
        return guarded(await opening, opening);
      } catch (err) {
        if (current === opening) current = undefined;
        throw err;
      }
    },
    async close() {
      const opening = current;
      current = undefined;
      await (await opening?.catch(() => undefined))?.close();
    },
  };
}
