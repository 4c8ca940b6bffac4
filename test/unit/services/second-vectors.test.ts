// The second dense field (issue 12): unit rows carry the second model's vector of their bare text (windows
// none), each text embedded once, and a search asks the field and blends it in only when a model is configured.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { LmdbVectorCache } from '../../../src/adapters/state/lmdb-vector-cache.js';
import { bareTextOf } from '../../../src/memory/bare.js';
import { textHash } from '../../../src/memory/hash.js';
import { STATE_DIR } from '../../../src/memory/layout.js';
import { EmbeddingError } from '../../../src/errors.js';
import { secondVectorIndex } from '../../../src/services/core/second-vectors.js';
import { collectGarbage } from '../../../src/services/gc.js';
import { syncIndex } from '../../../src/services/core/sync.js';
import { searchMemories, type SearchResult } from '../../../src/services/search.js';
import { SECOND_WINDOW_TERM } from '../../../src/services/retrieval/window-term.js';
import { DAY_LOG } from '../../support/day-log.js';
import { HashEmbedder, InMemoryIndex } from '../../support/fakes.js';
import { tempRoot } from '../../support/temp-root.js';
import { unitDeps } from '../../support/unit-deps.js';

/** A second model whose server is down (or comes back when `up` is set). */
class DownEmbedder extends HashEmbedder {
  up = false;
  override async embedDocuments(texts: string[]): Promise<number[][]> {
    if (!this.up) throw new EmbeddingError('Connection error: connect ECONNREFUSED 127.0.0.1:9');
    return super.embedDocuments(texts);
  }
  override async embedQuery(text: string): Promise<number[]> {
    if (!this.up) throw new EmbeddingError('Connection error: connect ECONNREFUSED 127.0.0.1:9');
    return super.embedQuery(text);
  }
}

async function secondRoot(second: HashEmbedder = new HashEmbedder(6, 'second-test')) {
  const root = await tempRoot({
    'alice/episodic/2026-11-30.md': DAY_LOG,
    'alice/semantic/office-key.md': 'The spare key of the office is in the top drawer.\n',
  });
  const rows = new InMemoryIndex();
  const cache = new LmdbVectorCache(join(root, STATE_DIR), 'second-test-6');
  const deps = unitDeps(root, { index: secondVectorIndex(rows, { embedder: second, cache, batchSize: 8 }), second, secondCache: cache });
  return { root, rows, second, cache, deps };
}

describe('the second dense field', () => {
  it('gives every unit row the second vector of its bare text, and windows none', async () => {
    const { rows, second, deps } = await secondRoot();
    await syncIndex(deps);
    const all = [...rows.rows.values()];
    const units = all.filter((r) => r.kind === 'unit');
    expect(units.length).toBeGreaterThan(0);
    for (const u of units) expect(u.vector2).toEqual(await second.embedQuery(bareTextOf(u.content, u.heading)));
    expect(all.filter((r) => r.kind === 'window').every((r) => r.vector2 === undefined)).toBe(true);
    // The model read the bare texts, never a heading path.
    expect(second.embeddedTexts.some((t) => t.startsWith('2026-11-30\n'))).toBe(false);
  });

  it('embeds each bare text once: a rebuild reads them from its own cache', async () => {
    const { second, deps } = await secondRoot();
    await syncIndex(deps);
    const first = second.embeddedTexts.length;
    expect(first).toBeGreaterThan(0);
    await syncIndex(deps, { rebuild: true });
    expect(second.embeddedTexts.length).toBe(first);
  });

  it('a search asks the second field and reports its similarity; share 0 leaves it out', async () => {
    const { deps, second } = await secondRoot();
    await syncIndex(deps);
    const query = bareTextOf('- It hangs under the blue flower pot by the door', '');
    const ask = (share?: number) =>
      searchMemories(deps, { query, user: 'alice', unit: 'chunk', track: false, rescore: false }, share !== undefined ? { second: share } : {});
    const before = second.queryCalls;
    const withIt = await ask();
    expect(second.queryCalls).toBe(before + 1);
    // The hash model gives the identical bare text similarity 1: it comes first.
    expect(withIt[0]!.content).toContain('blue flower pot');
    expect(withIt[0]!.scores.second).toBeCloseTo(1, 6);
    const without = await ask(0);
    expect(second.queryCalls).toBe(before + 1);
    expect(without.every((r) => r.scores.second === undefined)).toBe(true);
  });

  it('a search whose second model does not answer ranks without it, and says so', async () => {
    const second = new DownEmbedder(6, 'second-test');
    second.up = true;
    const { deps } = await secondRoot(second);
    await syncIndex(deps);
    second.up = false;
    const input = { query: 'where is the spare key', user: 'alice', unit: 'chunk' as const, track: false, rescore: false };
    const degraded = await searchMemories({ ...deps, secondDenseWeight: 0.2 }, input);
    expect(degraded.length).toBeGreaterThan(0);
    expect(degraded.degraded?.second).toContain('MEM_SECOND_MODEL');
    expect(degraded.degraded?.second).toContain('ECONNREFUSED');
    expect(degraded.every((r) => r.scores.second === undefined)).toBe(true);
    // Exactly the two-field ranking: the share off, and the first field's own weight (not the one it has beside the second).
    const twoFields = await searchMemories(deps, input, { second: 0 });
    expect(twoFields.degraded).toBeUndefined();
    expect(degraded.map((r) => [r.path, r.lines, r.score])).toEqual(twoFields.map((r) => [r.path, r.lines, r.score]));
    second.up = true;
    expect((await searchMemories(deps, input)).degraded).toBeUndefined();
  });

  it('with the second model answering, the fusion takes its own first-field weight', async () => {
    const { deps } = await secondRoot();
    await syncIndex(deps);
    const input = { query: 'where is the spare key', user: 'alice', unit: 'chunk' as const, track: false, rescore: false };
    const own = await searchMemories({ ...deps, secondDenseWeight: 0.2 }, input);
    expect(own).toEqual(await searchMemories(deps, input, { denseWeight: 0.2 }));
  });

  it('with the second model answering, units gain the window term by default; without it, they do not', async () => {
    const { deps } = await secondRoot();
    await syncIndex(deps);
    const input = { query: 'where is the spare key', user: 'alice', unit: 'chunk' as const, track: false, rescore: false };
    const ranked = (results: SearchResult[]) => results.map((r) => [r.path, r.lines, r.score]);
    const byDefault = await searchMemories(deps, input);
    expect(ranked(byDefault)).toEqual(ranked(await searchMemories(deps, input, { windowTerm: SECOND_WINDOW_TERM })));
    // The term only adds: every unit of the day log scores higher with it than without.
    const without = await searchMemories(deps, input, { windowTerm: 0 });
    const log = (results: SearchResult[]) => new Map(results.filter((r) => r.path.includes('episodic')).map((r) => [r.lines.join('-'), r.score]));
    const [on, off] = [log(byDefault), log(without)];
    expect(on.size).toBeGreaterThan(0);
    for (const [lines, score] of on) expect(score).toBeGreaterThan(off.get(lines)!);
    // The second field off (its share 0): no term unless asked for.
    expect(ranked(await searchMemories(deps, input, { second: 0 }))).toEqual(ranked(await searchMemories(deps, input, { second: 0, windowTerm: 0 })));
  });

  it('a sync whose second model cannot embed fails naming the setting, loses nothing, and the next sync retries', async () => {
    const second = new DownEmbedder(6, 'second-test');
    const { root, rows, deps } = await secondRoot(second);
    const before = await readFile(join(root, 'alice/semantic/office-key.md'), 'utf8');
    const err = await syncIndex(deps).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EmbeddingError);
    expect((err as Error).message).toContain('MEM_SECOND_MODEL');
    expect((err as Error).message).toContain('the next sync retries');
    expect(await readFile(join(root, 'alice/semantic/office-key.md'), 'utf8')).toBe(before);
    second.up = true;
    const report = await syncIndex(deps);
    expect(report.errors).toEqual([]);
    const units = [...rows.rows.values()].filter((r) => r.kind === 'unit');
    expect(units.some((u) => u.path === 'alice/semantic/office-key.md')).toBe(true);
    expect(units.some((u) => u.path === 'alice/episodic/2026-11-30.md')).toBe(true);
    expect(units.every((u) => u.vector2 !== undefined)).toBe(true);
  });

  it('mem gc prunes the second cache like the first: vectors of texts no file holds any more go', async () => {
    const { root, rows, cache, deps } = await secondRoot();
    await syncIndex(deps);
    const hashesOf = (path: string) => [...rows.rows.values()].filter((r) => r.kind === 'unit' && r.path === path).map((r) => r.textHash);
    const gone = hashesOf('alice/semantic/office-key.md');
    const kept = hashesOf('alice/episodic/2026-11-30.md');
    expect(gone.length).toBeGreaterThan(0);
    expect((await cache.getMany(gone)).size).toBe(gone.length);
    await rm(join(root, 'alice/semantic/office-key.md'));
    const result = await collectGarbage(deps);
    expect(result.purge?.secondVectorsRemoved).toBe(gone.length);
    expect((await cache.getMany(gone)).size).toBe(0);
    expect((await cache.getMany(kept)).size).toBe(kept.length);
  });

  it("takes a vector cached under the bare text's hash (the key before) instead of embedding it again", async () => {
    const { rows, second, cache, deps } = await secondRoot();
    await syncIndex(deps);
    const units = [...rows.rows.values()].filter((r) => r.kind === 'unit');
    // A cache as the first version of the field filled it: by the bare text's hash.
    const old = new Map(units.map((u) => [textHash(bareTextOf(u.content, u.heading)), u.vector2!]));
    await cache.retain(new Set());
    await cache.putMany(old);
    second.reset();
    await syncIndex(deps, { rebuild: true });
    expect(second.embeddedTexts).toEqual([]);
    // float32 in the cache: equal to 6 decimals.
    const rounded = (v: number[] | undefined) => v?.map((x) => Math.round(x * 1e6));
    for (const u of [...rows.rows.values()].filter((r) => r.kind === 'unit')) {
      expect(rounded(u.vector2)).toEqual(rounded(old.get(textHash(bareTextOf(u.content, u.heading)))));
    }
    expect((await cache.getMany(units.map((u) => u.textHash))).size).toBe(new Set(units.map((u) => u.textHash)).size);
  });
});
