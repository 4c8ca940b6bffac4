// Covers reopeningMemory: a long-lived shell (mem mcp) whose shared servers died opens the memory again on the next
// call (which restarts them), instead of failing every call until it is restarted; other errors change nothing.
import { describe, expect, it } from 'vitest';

import { reopeningMemory } from '../../../src/cli/reopen-memory.js';
import { EmbeddingError, IndexUnavailableError, NotFoundError } from '../../../src/errors.js';
import type { Memory } from '../../../src/services/facade.js';

/** A Memory whose search answers with its generation, or throws what `fail` holds; records its close. */
function fakeOpener() {
  const opened: { n: number; closed: boolean; fail?: Error }[] = [];
  let failOpen: Error | undefined;
  const open = async (): Promise<Memory> => {
    if (failOpen) {
      const err = failOpen;
      failOpen = undefined;
      throw err;
    }
    const state: { n: number; closed: boolean; fail?: Error } = { n: opened.length + 1, closed: false };
    opened.push(state);
    return {
      root: '/r',
      search: async () => {
        if (state.fail) throw state.fail;
        return { results: [{ id: `gen${state.n}` }] };
      },
      close: async () => {
        state.closed = true;
      },
    } as unknown as Memory;
  };
  return { open, opened, failNextOpen: (err: Error) => (failOpen = err) };
}

const search = async (m: Memory) => ((await m.search({ query: 'q', user: 'u' })) as unknown as { results: { id: string }[] }).results[0]!.id;

describe('reopeningMemory', () => {
  it('opens once and reuses the memory while it answers', async () => {
    const f = fakeOpener();
    const r = reopeningMemory(f.open);
    expect(await search(await r.memory())).toBe('gen1');
    expect(await search(await r.memory())).toBe('gen1');
    expect(f.opened).toHaveLength(1);
  });

  it('after the index or the embedding server is unavailable, the next call opens it again and the old one is closed', async () => {
    const f = fakeOpener();
    const r = reopeningMemory(f.open);
    const first = await r.memory();
    f.opened[0]!.fail = new IndexUnavailableError('Milvus at 127.0.0.1:1 unavailable during search');
    await expect(first.search({ query: 'q', user: 'u' })).rejects.toBeInstanceOf(IndexUnavailableError);
    expect(await search(await r.memory())).toBe('gen2');
    expect(f.opened[0]!.closed).toBe(true);
    f.opened[1]!.fail = new EmbeddingError('embedding request failed: Connection error');
    await expect((await r.memory()).search({ query: 'q', user: 'u' })).rejects.toBeInstanceOf(EmbeddingError);
    expect(await search(await r.memory())).toBe('gen3');
  });

  it('any other error keeps the memory open', async () => {
    const f = fakeOpener();
    const r = reopeningMemory(f.open);
    f.opened.length = 0;
    const m = await r.memory();
    f.opened[0]!.fail = new NotFoundError('no memory with id x');
    await expect(m.search({ query: 'q', user: 'u' })).rejects.toBeInstanceOf(NotFoundError);
    delete f.opened[0]!.fail;
    expect(await search(await r.memory())).toBe('gen1');
    expect(f.opened).toHaveLength(1);
  });

  it('an open that failed is tried again on the next call; close closes what is open', async () => {
    const f = fakeOpener();
    const r = reopeningMemory(f.open);
    f.failNextOpen(new Error('the runtime could not start'));
    await expect(r.memory()).rejects.toThrow('could not start');
    expect(await search(await r.memory())).toBe('gen1');
    await r.close();
    expect(f.opened[0]!.closed).toBe(true);
  });
});
