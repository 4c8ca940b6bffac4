// The ledger of captured turns and the tombstones a forget leaves: keys only, owner-only state, a tombstone per day.
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { FORGOTTEN_DIR, FsTurnLedger } from '../../../../src/adapters/state/turn-ledger.js';
import { tempRoot } from '../../../support/temp-root.js';

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

async function ledger() {
  const root = await tempRoot();
  roots.push(root);
  return { root, ledger: new FsTurnLedger(root, join(root, '.mem')) };
}

describe('FsTurnLedger', () => {
  it('knows what it recorded; its file is owner-only', async () => {
    const { root, ledger: l } = await ledger();
    expect(await l.known()).toEqual(new Set());
    await l.record([
      { key: 'a1', path: 'ann/episodic/2026-12-01.md' },
      { key: 'b2', path: 'ann/episodic/2026-12-02-3.md' },
    ]);
    expect(await l.known()).toEqual(new Set(['a1', 'b2']));
    expect((await stat(join(root, '.mem', 'hooks', 'turns.tsv'))).mode & 0o777).toBe(0o600);
  });

  it("a forget of any part of a day tombstones that day's keys, and only them; the tombstone is what a fresh ledger knows", async () => {
    const { root, ledger: l } = await ledger();
    await l.record([
      { key: 'a1', path: 'ann/episodic/2026-12-01.md' },
      { key: 'a2', path: 'ann/episodic/2026-12-01-2.md' },
      { key: 'b1', path: 'ann/episodic/2026-12-02.md' },
    ]);
    const written = await l.forget(['ann/episodic/2026-12-01-2.md']);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(new RegExp(`^${FORGOTTEN_DIR}/[0-9a-f]{16}\\.txt$`));
    const text = await readFile(join(root, written[0]!), 'utf8');
    expect(text.split('\n').filter((l) => l && !l.startsWith('#'))).toEqual(['a1', 'a2']);
    // Another machine's ledger (no state of its own) knows the tombstoned keys from the committed file.
    const elsewhere = new FsTurnLedger(root, join(root, 'other-state'));
    expect(await elsewhere.known()).toEqual(new Set(['a1', 'a2']));
    expect(await l.forget(['ann/semantic/tea.md'])).toEqual([]);
  });
});
