// Covers the daemon's cache of open roots: a root opened once and counted as served, a failed opening not kept,
// closing (whether it was open, the memory closed), and a root replaced on disk told apart by its identity.
import { describe, expect, it } from 'vitest';

import { OpenRoots } from '../../../src/daemon/open-roots.js';
import type { Memory } from '../../../src/services/facade.js';

/** A cache over memories that only count their closing; `fail` roots fail to open. */
function cache(fail: string[] = []) {
  const events: string[] = [];
  const identity = new Map<string, string>();
  let closed = 0;
  const roots = new OpenRoots({
    open: async (root) => {
      events.push(`open ${root}`);
      if (fail.includes(root)) throw new Error('cannot open');
      return { close: async () => void closed++ } as unknown as Memory;
    },
    onLog: (line) => events.push(line),
    identityOf: (root) => identity.get(root) ?? 'id-1',
    onOpening: (root, user) => events.push(`warm ${root} ${user ?? '-'}`),
    onClosing: (root) => events.push(`drop ${root}`),
  });
  return { roots, events, identity, closed: () => closed };
}

describe('OpenRoots', () => {
  it('opens a root once, counts it as served even after a close, and closes its memory', async () => {
    const { roots, events, closed } = cache();
    const a = roots.memoryOf('/r/a', 'alice');
    expect(roots.memoryOf('/r/a')).toBe(a);
    await a.memory;
    expect(events).toEqual(['warm /r/a alice', 'opening /r/a', 'open /r/a']);
    expect(roots.paths()).toEqual(['/r/a']);
    expect([...roots.seen]).toEqual(['/r/a']);

    expect(await roots.close('/r/a', 'idle')).toBe(true);
    expect(await roots.close('/r/a', 'idle')).toBe(false);
    expect(closed()).toBe(1);
    expect([...roots.seen]).toEqual(['/r/a']); // still served: the watchdog notices it gone from disk even when closed
    expect(events.slice(-2)).toEqual(['drop /r/a', 'closing /r/a: idle']);

    events.length = 0;
    await roots.memoryOf('/r/a').memory;
    expect(events).toEqual(['warm /r/a -', 'opening /r/a', 'open /r/a']);
  });

  it('does not keep a root that failed to open: its next use tries again', async () => {
    const { roots } = cache(['/r/bad']);
    await expect(roots.memoryOf('/r/bad').memory).rejects.toThrow('cannot open');
    await new Promise((r) => setImmediate(r));
    expect(roots.get('/r/bad')).toBeUndefined();
    expect(roots.paths()).toEqual([]);
  });

  it('tells a root replaced on disk (another identity) from the one it opened', async () => {
    const { roots, identity } = cache();
    const a = roots.memoryOf('/r/a');
    expect(roots.replaced('/r/a')).toBeUndefined(); // still opening: no identity yet
    await a.memory;
    await new Promise((r) => setImmediate(r));
    expect(roots.identities()).toEqual({ '/r/a': 'id-1' });
    expect(roots.replaced('/r/a')).toBeUndefined();
    identity.set('/r/a', 'id-2');
    expect(roots.replaced('/r/a')).toBe(a);
    expect(roots.replaced('/r/other')).toBeUndefined();
  });
});
