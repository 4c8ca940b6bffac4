// Covers `mem add` embedding its text once: reconciliation's vector is the one the sync indexes (cached), for a
// one-chunk memory, a memory of several chunks, and a correction that rewrites an older file too.
import { rm } from 'node:fs/promises';

import { afterEach, describe, expect, it } from 'vitest';

import { addMemory } from '../../../src/services/add.js';
import { HashEmbedder, InMemoryIndex, hashVector } from '../../support/fakes.js';
import { tempRoot } from '../../support/temp-root.js';
import { unitDeps } from '../../support/unit-deps.js';

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

/** As the vector cache stores it. */
const f32 = (v: number[]) => Array.from(new Float32Array(v));

async function setup(chunking = { maxChars: 1500 }) {
  const root = await tempRoot();
  roots.push(root);
  const embedder = new HashEmbedder(8);
  const index = new InMemoryIndex();
  const deps = unitDeps(root, { embedder, index, chunking });
  return { deps, embedder, index };
}

describe('addMemory embeds its text once', () => {
  it('a one-chunk memory: one embedding call of one text, and the indexed row has its vector', async () => {
    const { deps, embedder, index } = await setup();
    const text = 'Alice prefers window seats on long flights';
    const added = await addMemory(deps, { text, user: 'alice' });
    expect(added.action).toBe('ADD');
    expect(embedder.documentCalls).toBe(1);
    expect(embedder.embeddedTexts).toEqual([text]);
    const rows = [...index.rows.values()].filter((r) => r.path === added.path);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.vector).toEqual(f32(hashVector(text, 8)));
  });

  it('a memory of several chunks: one call; the whole text is compared, each chunk embedded once and indexed from the cache', async () => {
    const { deps, embedder, index } = await setup({ maxChars: 60 });
    const text = '# Trip\n\nAlice flies to Lisbon on the 3rd of May.\n\n# Food\n\nShe is allergic to peanuts and avoids shellfish.';
    const added = await addMemory(deps, { text, user: 'alice' });
    expect(embedder.documentCalls).toBe(1);
    const rows = [...index.rows.values()].filter((r) => r.path === added.path);
    expect(rows.length).toBe(2);
    expect(embedder.embeddedTexts).toEqual([text, ...rows.map((r) => r.content)].sort((a, b) => (a === text ? -1 : b === text ? 1 : 0)));
    expect(new Set(embedder.embeddedTexts).size).toBe(3);
    for (const row of rows) expect(row.vector).toEqual(f32(hashVector(row.content, 8)));
  });

  it('a correction (SUPERSEDE) embeds only the new text: the old memory is re-indexed from the cache', async () => {
    const { deps, embedder } = await setup();
    await addMemory(deps, { text: 'Alice lives in Munich', user: 'alice', key: 'residence' });
    embedder.reset();
    const corrected = await addMemory(deps, { text: 'Alice moved to Berlin', user: 'alice', key: 'residence' });
    expect(corrected.action).toBe('SUPERSEDE');
    expect(embedder.documentCalls).toBe(1);
    expect(embedder.embeddedTexts).toEqual(['Alice moved to Berlin']);
  });
});
