// Covers the embedding of an edit's new texts sent before the sync loads its manifest (services/core/embed-ahead.ts).
import { utimesSync, writeFileSync } from 'node:fs';
import { utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { AHEAD_MAX_FILES } from '../../../src/services/core/embed-ahead.js';
import { syncIndex } from '../../../src/services/core/sync.js';
import { hashVector } from '../../support/fakes.js';
import { setup, type Setup } from '../../support/sync-fixture.js';

const TREE = {
  'alice/semantic/tea.md': 'Alice likes green tea in the morning, every day.\n\nShe is allergic to peanuts and also to shellfish.\n',
  'bob/episodic/trip.md': '# Trip to Porto\n\nWe took the train on Monday morning, early.\n',
};

/** A synced setup whose embedder calls and manifest loads are recorded in the order they happen. */
async function synced(tree: Record<string, string> = TREE): Promise<Setup & { events: string[] }> {
  const events: string[] = [];
  const s = await setup(tree);
  await syncIndex(s.deps);
  const load = s.deps.manifest.load.bind(s.deps.manifest);
  s.deps.manifest.load = async () => {
    events.push('load');
    return load();
  };
  const embed = s.embedder.embedDocuments.bind(s.embedder);
  s.embedder.embedDocuments = async (texts) => {
    events.push(`embed ${texts.length}`);
    return embed(texts);
  };
  s.embedder.reset();
  // The next writes must be dated after the manifest's save.
  await new Promise((resolve) => setTimeout(resolve, 20));
  return { ...s, events };
}

/** Rewrites a file with an mtime of now: after the manifest's last save, not in the future. */
async function editNow(root: string, path: string, text: string): Promise<void> {
  await writeFile(join(root, path), text);
  const now = new Date();
  await utimes(join(root, path), now, now);
}

describe('syncIndex: an edit embedded ahead', () => {
  it("sends an edited file's new texts before the manifest is read, once, and counts them as this sync's", async () => {
    const { root, deps, events, embedder, index } = await synced();
    await editNow(root, 'alice/semantic/tea.md', 'Alice likes green tea in the morning, every day.\n\nShe now drinks it cold, with mint.\n');
    const report = await syncIndex(deps);
    expect(report.errors).toEqual([]);
    expect(events[0]).toMatch(/^embed /);
    expect(events.filter((e) => e === 'load')).toHaveLength(1);
    expect(events.indexOf('load')).toBeGreaterThan(0);
    // Exactly the new texts, each once: nothing embedded again by the sync's own batch.
    expect(embedder.embeddedTexts.length).toBe(new Set(embedder.embeddedTexts).size);
    expect(report.embedded).toBe(embedder.embeddedTexts.length);
    expect(report.embedded).toBeGreaterThan(0);
    const rows = index.rowsOf('alice/semantic/tea.md');
    const fresh = rows.find((r) => r.content.includes('She now drinks it cold, with mint.'))!;
    expect(fresh.vector).toEqual(hashVector(fresh.content, 8));
    // Cached by the sync that used them: the same text elsewhere is not embedded again.
    const cached = await deps.cache.getMany([fresh.textHash]);
    cached.get(fresh.textHash)!.forEach((x, i) => expect(x).toBeCloseTo(fresh.vector[i]!, 6)); // stored as float32
  });

  it('a no-op, a deletion and a file dated before the last save embed nothing ahead', async () => {
    const { root, deps, events } = await synced();
    await syncIndex(deps);
    expect(events).toEqual(['load']);

    events.length = 0;
    await editNow(root, 'alice/semantic/tea.md', 'Alice likes black tea now.\n');
    await utimes(join(root, 'alice/semantic/tea.md'), 1_000_000, 1_000_000); // older than any save
    const report = await syncIndex(deps);
    expect(report.embedded).toBeGreaterThan(0);
    expect(events[0]).toBe('load');
  });

  it(`more than ${AHEAD_MAX_FILES} changed files are left to the sync's batches`, async () => {
    const tree: Record<string, string> = {};
    for (let i = 0; i <= AHEAD_MAX_FILES; i++) tree[`alice/semantic/n${i}.md`] = `Note number ${i} about the garden.\n`;
    const { root, deps, events } = await synced(tree);
    for (let i = 0; i <= AHEAD_MAX_FILES; i++) await editNow(root, `alice/semantic/n${i}.md`, `Note number ${i} about the kitchen.\n`);
    const report = await syncIndex(deps);
    expect(report.embedded).toBe(AHEAD_MAX_FILES + 1);
    expect(events[0]).toBe('load');
  });

  it('a file changed again after its texts were sent ahead is indexed as it is now', async () => {
    const { root, deps, embedder, index } = await synced();
    await editNow(root, 'bob/episodic/trip.md', '# Trip to Porto\n\nWe took the train on Tuesday.\n');
    const embed = embedder.embedDocuments.bind(embedder);
    let first = true;
    embedder.embedDocuments = async (texts) => {
      if (first) {
        first = false;
        // Synchronously: the change is on disk before the sync goes on to read the file (an async write could race it).
        writeFileSync(join(root, 'bob/episodic/trip.md'), '# Trip to Porto\n\nWe flew on Wednesday instead.\n');
        utimesSync(join(root, 'bob/episodic/trip.md'), new Date(), new Date());
      }
      return embed(texts);
    };
    const report = await syncIndex(deps);
    expect(report.errors).toEqual([]);
    const rows = index.rowsOf('bob/episodic/trip.md');
    expect(rows.map((r) => r.content).join('\n')).toContain('We flew on Wednesday instead.');
    expect(rows.map((r) => r.content).join('\n')).not.toContain('Tuesday');
    for (const r of rows) expect(r.vector).toEqual(hashVector(r.content, 8));
    // It was sent ahead, then embedded again as it is now; only the texts the index holds count as embedded.
    expect(embedder.embeddedTexts.some((t) => t.includes('Tuesday'))).toBe(true);
    expect(report.embedded).toBe(embedder.embeddedTexts.filter((t) => !t.includes('Tuesday')).length);
  });

  it('a failed request ahead fails the sync with its error, without a second request for the same texts', async () => {
    const { root, deps, embedder, index } = await synced();
    const before = index.rowsOf('alice/semantic/tea.md').map((r) => r.content);
    await editNow(root, 'alice/semantic/tea.md', 'Alice likes rooibos now.\n');
    let calls = 0;
    embedder.embedDocuments = async () => {
      calls++;
      throw new Error('embedding server unreachable');
    };
    await expect(syncIndex(deps)).rejects.toThrow('embedding server unreachable');
    expect(calls).toBe(1);
    // Nothing lost: the old rows stay until a sync can embed the new text.
    expect(index.rowsOf('alice/semantic/tea.md').map((r) => r.content)).toEqual(before);
  });
});
