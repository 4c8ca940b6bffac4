// Covers openInDaemon: `mem server status` marks a served root's collection "open in memd" by the root id the daemon
// opened its path with, so the orphan collections of a path (an older id: the root replaced on disk) are not marked.
import { describe, expect, it } from 'vitest';

import { openInDaemon } from '../../src/server-control.js';

const current = { root: '/r', collection: 'memdir_00000000000000b2', state: 'active' as const };
const orphan = { root: '/r', collection: 'memdir_00000000000000a1', state: 'orphan' as const };

describe('openInDaemon', () => {
  it('marks only the collection of the root id the daemon opened the path with', () => {
    const daemon = { roots: ['/r'], identities: { '/r': '00000000000000b2' } };
    expect(openInDaemon(current, daemon)).toBe(true);
    expect(openInDaemon(orphan, daemon)).toBe(false);
  });

  it('a daemon still holding the old opening marks the old collection, not the new one', () => {
    const daemon = { roots: ['/r'], identities: { '/r': '00000000000000a1' } };
    expect(openInDaemon({ ...orphan }, daemon)).toBe(true);
    expect(openInDaemon(current, daemon)).toBe(false);
  });

  it('without an identity (a root still opening, an older daemon): by path, orphans aside; another path never', () => {
    expect(openInDaemon(current, { roots: ['/r'] })).toBe(true);
    expect(openInDaemon(orphan, { roots: ['/r'] })).toBe(false);
    expect(openInDaemon(current, { roots: ['/other'] })).toBe(false);
    expect(openInDaemon(current, {})).toBe(false);
  });
});
