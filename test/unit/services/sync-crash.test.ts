// Crash safety of sync, exhaustively: the sync is stopped before and after each of its effects in turn (index calls,
// embedding, cache writes, manifest saves), and the next sync must reach exactly the state an uninterrupted run reaches.
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ChunkList, ChunkRef, ManifestEntry, ManifestStore, VectorCache } from '../../../src/services/ports.js';
import { syncIndex, type SyncDeps, type SyncOptions } from '../../../src/services/core/sync.js';
import { edit, setup, type Setup } from '../../support/sync-fixture.js';

class Crash extends Error {}

/**
 * Deps whose effects count steps (one before and one after each call) and throw Crash at step `at`, and at every
 * step after it: a killed process makes no call after the kill, even one whose failure the sync ignores (the flush
 * after a small write).
 */
function crashingAt(deps: SyncDeps, at: number): { deps: SyncDeps; steps: () => number; killedIn: () => string | undefined } {
  let step = 0;
  let killedIn: string | undefined;
  const tick = (method: string) => {
    if (++step < at) return;
    killedIn ??= method;
    throw new Crash(`crash at step ${at}`);
  };
  function wrap<T extends object>(target: T, methods: (keyof T)[]): T {
    const copy = Object.create(target) as T;
    for (const m of methods) {
      const original = target[m] as unknown as (...a: unknown[]) => Promise<unknown>;
      (copy as Record<keyof T, unknown>)[m] = async (...args: unknown[]) => {
        tick(String(m));
        const result = await original.apply(target, args);
        tick(String(m));
        return result;
      };
    }
    return copy;
  }
  return {
    deps: {
      ...deps,
      index: wrap(deps.index, ['open', 'drop', 'insert', 'upsert', 'deleteChunks', 'deleteStale', 'delete', 'flush', 'listPaths']),
      embedder: wrap(deps.embedder, ['embedDocuments']),
      cache: wrap(deps.cache, ['putMany']),
      manifest: wrap(deps.manifest, ['save', 'markPending', 'clear', 'putChunks']),
      // Save progress after every batch, so kills land between saves too; batches as small as with embedding.
      manifestSaveIntervalMs: 0,
      writeBatchRows: 64,
    },
    steps: () => step,
    killedIn: () => killedIn,
  };
}

const para = (i: number, v: number) => `Memory number ${i} says something about topic ${i % 7}, version ${v}.`;
// Nine chunks a file: editing nine files fills two batches of 64 records, so progress is saved between them.
const TAIL = (i: number) => Array.from({ length: 8 }, (_, p) => `Paragraph ${p + 2} of memory ${i}, long enough to be a chunk.`).join('\n\n');
function corpus(): Record<string, string> {
  const tree: Record<string, string> = {};
  for (let i = 0; i < 12; i++) tree[`u${i % 3}/semantic/m${i}.md`] = `${para(i, 0)}\n\n${TAIL(i)}\n`;
  // Hand-written corrections: their targets' rows carry the status the links give them.
  tree['u2/semantic/fix2.md'] = '---\nsupersedes: u2/semantic/m2\n---\nA hand-written correction of memory 2.\n';
  tree['u1/semantic/fix1.md'] = '---\nsupersedes: [u1/semantic/m1, u1/semantic/m7]\n---\nA hand-written correction of memories 1 and 7.\n';
  return tree;
}

interface Scenario {
  name: string;
  /** Changes the files (and state) after the first sync; returns the options of the sync that gets killed. */
  change(s: Setup): Promise<SyncOptions>;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'incremental: most files edited, some deleted, some added, one broken',
    async change({ root }) {
      for (let i = 0; i < 9; i++) await edit(root, `u${i % 3}/semantic/m${i}.md`, `${para(i, 1)}\n\n${TAIL(i)}\n`);
      await unlink(join(root, 'u0/semantic/m9.md'));
      await unlink(join(root, 'u1/semantic/m10.md'));
      await edit(root, 'u2/semantic/m11.md', '---\nimportance: high\n---\nbroken now\n');
      await edit(root, 'u0/semantic/new-a.md', 'A brand new memory, first of two.\n');
      await edit(root, 'u1/semantic/new-b.md', 'A brand new memory, second of two.\n');
      return {};
    },
  },
  {
    name: 'hand-written corrections added, moved and undone, in a partial sync (as watch does)',
    async change({ root }) {
      await edit(root, 'u0/semantic/fix0.md', '---\nsupersedes: [u0/semantic/m0, u0/semantic/m3]\n---\nA new correction of memories 0 and 3.\n');
      await edit(root, 'u1/semantic/fix1.md', '---\nsupersedes: u1/semantic/m4\n---\nNow it corrects memory 4 instead.\n');
      await unlink(join(root, 'u2/semantic/fix2.md'));
      for (let i = 6; i < 9; i++) await edit(root, `u${i % 3}/semantic/m${i}.md`, `${para(i, 4)}\n\n${TAIL(i)}\n`);
      return { only: ['u0/semantic/fix0.md', 'u1/semantic/fix1.md', 'u2/semantic/fix2.md', 'u0/semantic/m6.md', 'u1/semantic/m7.md', 'u2/semantic/m8.md'] };
    },
  },
  {
    name: 'rebuild with edits',
    async change({ root }) {
      for (let i = 0; i < 4; i++) await edit(root, `u${i % 3}/semantic/m${i}.md`, `${para(i, 2)}\n`);
      await unlink(join(root, 'u0/semantic/m9.md'));
      return { rebuild: true };
    },
  },
  {
    name: 'lost manifest, with rows of a deleted file left in the index',
    async change({ root, deps }) {
      await deps.manifest.clear();
      await unlink(join(root, 'u0/semantic/m3.md'));
      for (let i = 6; i < 9; i++) await edit(root, `u${i % 3}/semantic/m${i}.md`, `${para(i, 3)}\n`);
      return {};
    },
  },
];

/** Index rows, manifest entries and their chunk lists, without what depends on when the files were written (mtimes, dates taken from them). */
async function stateOf(s: Setup) {
  const rows = [...s.index.rows.values()].map(({ vector: _v, created: _c, updated: _u, ...r }) => r).sort((a, b) => a.chunkId.localeCompare(b.chunkId));
  const entries = (await s.deps.manifest.load()) ?? new Map<string, ManifestEntry>();
  const lists = await s.deps.manifest.chunksOf(entries);
  const manifest = [...entries]
    .map(([path, { size: _s, mtimeMs: _m, ...e }]) => [path, { ...e, chunks: lists.get(path) }] as const)
    .sort(([a], [b]) => a.localeCompare(b));
  return { rows, manifest };
}

// Cache, manifest and lock in memory: their files (written with fsync) are not what this test is about, and are slow.
class MapCache implements VectorCache {
  private readonly vectors = new Map<string, number[]>();
  async getMany(hashes: string[]) {
    return new Map(hashes.filter((h) => this.vectors.has(h)).map((h) => [h, this.vectors.get(h)!]));
  }
  async putMany(entries: Map<string, number[]>) {
    for (const [h, v] of entries) this.vectors.set(h, v);
  }
  async removeMany(hashes: string[]) {
    for (const h of hashes) this.vectors.delete(h);
  }
  async retain(keep: Set<string>) {
    const gone = [...this.vectors.keys()].filter((h) => !keep.has(h));
    for (const h of gone) this.vectors.delete(h);
    return gone.length;
  }
}

/**
 * The manifest in memory, saved as a copy (as a file would be), with its pending paths as JsonManifest keeps them,
 * and its chunk lists apart, written when putChunks is called and trusted as JsonManifest trusts them.
 */
class MapManifest implements ManifestStore {
  private saved: Map<string, ManifestEntry> | null = null;
  private pending: string[] = [];
  private readonly lists = new Map<string, { sha: string; chunks: ChunkRef[] }>();
  private rewrite = false;
  needsRewrite() {
    return this.rewrite;
  }
  async chunksOf(entries: Iterable<[string, ManifestEntry]>) {
    const found = new Map<string, ChunkRef[]>();
    for (const [path, e] of entries) {
      const list = this.lists.get(path);
      if (list && (e.sha === '' || e.sha === list.sha)) found.set(path, structuredClone(list.chunks));
    }
    return found;
  }
  async putChunks(lists: ChunkList[]) {
    for (const l of lists) this.lists.set(l.path, structuredClone({ sha: l.sha, chunks: l.chunks }));
  }
  async textHashes(entries: Map<string, ManifestEntry>) {
    return new Set([...(await this.chunksOf(entries)).values()].flatMap((chunks) => chunks.map((c) => c.textHash)));
  }
  async exists() {
    return this.saved !== null;
  }
  async load() {
    if (!this.saved) return null;
    const entries = structuredClone(this.saved);
    for (const path of this.pending) {
      const known = entries.get(path) ?? { memoryId: '', user: '', type: 'semantic' as const, status: 'active' as const, chunkCount: 0 };
      entries.set(path, { ...known, size: -1, mtimeMs: -1, sha: '', unknownRows: true });
    }
    return entries;
  }
  async markPending(paths: string[]) {
    this.pending.push(...paths);
  }
  async save(entries: Map<string, ManifestEntry>) {
    const removed = [...(this.saved?.keys() ?? [])].filter((p) => !entries.has(p));
    this.saved = structuredClone(entries);
    this.pending = [];
    for (const path of removed) this.lists.delete(path);
  }
  async clear() {
    this.saved = null;
    this.pending = [];
    this.lists.clear();
    this.instance = null;
  }
  private instance: string | null = null;
  async indexInstance() {
    return this.instance;
  }
  async bindIndex(instance: string) {
    this.instance = instance;
  }
}

async function prepared(scenario: Scenario): Promise<{ s: Setup; options: SyncOptions }> {
  const s = await setup(corpus(), { embedBatchSize: 16, cache: new MapCache(), manifest: new MapManifest(), lock: { run: (fn) => fn() } });
  await syncIndex(s.deps);
  const options = await scenario.change(s);
  return { s, options };
}

describe('sync killed at every step converges on the next run', () => {
  it.each(SCENARIOS)(
    '$name',
    async (scenario) => {
      // The uninterrupted run: the state every interrupted one must reach after one more sync.
      const ref = await prepared(scenario);
      const counted = crashingAt(ref.s.deps, Number.POSITIVE_INFINITY);
      const upserts = ref.s.index.calls.upsert;
      await syncIndex(counted.deps, ref.options);
      if (!ref.options.rebuild) expect(ref.s.index.calls.upsert - upserts).toBeGreaterThan(1); // progress saved between batches
      await syncIndex(ref.s.deps);
      const expected = await stateOf(ref.s);
      const total = counted.steps();
      expect(total).toBeGreaterThan(16); // enough effects for the kill points to mean something
      expect(expected.rows.length).toBeGreaterThan(20);

      for (let at = 1; at <= total; at++) {
        const { s, options } = await prepared(scenario);
        const crashing = crashingAt(s.deps, at);
        const outcome = await syncIndex(crashing.deps, options).then(
          () => 'finished',
          (err: unknown) => err,
        );
        // Killed in the flush after a small write, which the sync does not wait for past a moment, the sync may
        // have finished all else (a real kill would come after it): the next run must converge all the same.
        if (outcome === 'finished') expect(crashing.killedIn(), `step ${at} of ${total}`).toBe('flush');
        else expect(outcome, `step ${at} of ${total}`).toBeInstanceOf(Crash);
        await syncIndex(s.deps);
        expect(await stateOf(s), `killed at step ${at} of ${total}`).toEqual(expected);
      }
    },
    120_000,
  );
});
