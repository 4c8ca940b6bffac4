// VectorCache in one LMDB file per embedding model under `.mem/vectors/`, read and written in bulk; a removal
// rewrites the live vectors into a new file (a generation), so no removed vector's bytes stay in freed pages.
import { readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

import type { RootDatabase } from 'lmdb';

import { stateLayoutAt } from '../../memory/layout.js';
import type { VectorCache } from '../../services/ports.js';
import { FileLock } from './file-lock.js';
import { inodeOf } from './inode.js';
import { lmdb, openLmdb } from './lmdb-open.js';
import { ensureStateDir, ownerOnlyFiles } from './state-dir.js';

type Db = RootDatabase<Buffer, Buffer>;

// 8 KiB pages hold five 1.5 KB vectors where 4 KiB pages hold two.
const OPTIONS = { noSubdir: true, keyEncoding: 'binary', encoding: 'binary', compression: false, cache: false, pageSize: 8192 } as const;

/** Entries per write transaction: bounds the dirty pages LMDB holds in memory (5,000 × 1.5 KB at 384 dims). */
const PER_TRANSACTION = 5_000;

/**
 * Vectors read before the store's memory map is let go (closed, reopened on the next call). Every page a read
 * touches stays mapped, and counts in the process's resident memory, until the map goes; and a read maps more
 * than its page: with the file in the page cache, one random read mapped ~135 KiB on average (the kernel maps
 * the whole cached folio and its neighbours), so 5,000 reads mapped all 112 MiB of a 10,000-file store during a
 * full index. 64 reads (one of the sync's lookups) map ~22 MiB at most where 128
 * mapped ~35 (on this kernel a read now maps ~350 KiB), and reads were no slower for the reopens.
 */
const RELEASE_MAP_AFTER_READS = 64;

// Keys are the text hashes as written (hex): they hold nothing of the text.
const keyOf = (hash: string) => Buffer.from(hash, 'utf8');
const hashOf = (key: Buffer) => key.toString('utf8');
const bytesOf = (vector: number[]) => Buffer.from(new Float32Array(vector).buffer);
/** Copied out (LMDB's buffers may point into its map; Float32Array needs 4-byte alignment); a plain loop: Array.from is 5× slower here. */
function vectorOf(bytes: Buffer): number[] {
  const floats = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const vector = new Array<number>(floats.length);
  for (let i = 0; i < floats.length; i++) vector[i] = floats[i]!;
  return vector;
}

/**
 * Several processes of one root (an add, a watch) share the file: LMDB's own locking covers their reads and
 * writes; writes and rewrites also hold the `vectors` lock, so no write goes to a generation being replaced.
 */
export class LmdbVectorCache implements VectorCache {
  private readonly dir: string;
  private readonly stateDir: string;
  private readonly base: string;
  private readonly lock: FileLock;
  private db: Db | null = null;
  private generation = -1;
  private inode = -1;
  /** Vectors read since the store was opened, and calls running now (the map goes only when none is). */
  private readSinceOpen = 0;
  private busy = 0;

  /** `stateDir`: the root's `.mem/` (see stateDirOf); `releaseMapAfterReads`: see RELEASE_MAP_AFTER_READS. */
  constructor(
    stateDir: string,
    modelKey: string,
    private readonly releaseMapAfterReads = RELEASE_MAP_AFTER_READS,
  ) {
    this.stateDir = stateDir;
    const store = stateLayoutAt(stateDir).vectors(modelKey);
    this.dir = dirname(store);
    this.base = basename(store);
    this.lock = new FileLock(stateDir, 'vectors');
  }

  async getMany(hashes: string[]): Promise<Map<string, number[]>> {
    const found = new Map<string, number[]>();
    if (hashes.length === 0) return found;
    await this.using(async () => {
      const db = await this.newest({ create: false });
      if (!db) return;
      const values = await db.getMany(hashes.map(keyOf));
      values.forEach((bytes, i) => {
        if (bytes) found.set(hashes[i]!, vectorOf(bytes));
      });
      this.readSinceOpen += hashes.length;
    });
    return found;
  }

  async putMany(entries: Map<string, number[]>): Promise<void> {
    if (entries.size === 0) return;
    await this.using(() =>
      this.lock.run(async () => {
        const db = (await this.newest({ create: true }))!;
        const all = [...entries];
        for (let i = 0; i < all.length; i += PER_TRANSACTION) {
          db.transactionSync(() => {
            for (const [hash, vector] of all.slice(i, i + PER_TRANSACTION)) db.putSync(keyOf(hash), bytesOf(vector));
          });
        }
      }),
    );
  }

  async removeMany(hashes: string[]): Promise<void> {
    const gone = new Set(hashes);
    await this.using(() => this.rewrite((hash) => !gone.has(hash)));
  }

  async retain(keep: Set<string>): Promise<number> {
    return this.using(() => this.rewrite((hash) => keep.has(hash)));
  }

  /** lmdb's modules, and the 16 MB buffer it allocates as it loads. */
  async preload(): Promise<void> {
    await lmdb();
  }

  async close(): Promise<void> {
    const db = this.db;
    this.db = null;
    this.generation = -1;
    this.readSinceOpen = 0;
    await db?.close();
  }

  /** Runs a read or write; the last call out lets the memory map go once enough has been read through it. */
  private async using<T>(work: () => Promise<T>): Promise<T> {
    this.busy++;
    try {
      return await work();
    } finally {
      this.busy--;
      if (this.busy === 0 && this.readSinceOpen >= this.releaseMapAfterReads) await this.close();
    }
  }

  private fileOf(generation: number): string {
    return join(this.dir, `${this.base}.${generation}.mdb`);
  }

  /** The generations on disk, newest first. */
  private async generations(): Promise<number[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const prefix = `${this.base}.`;
    return names
      .filter((n) => n.startsWith(prefix) && n.endsWith('.mdb'))
      .map((n) => Number(n.slice(prefix.length, -'.mdb'.length)))
      .filter((g) => Number.isInteger(g) && g >= 0)
      .sort((a, b) => b - a);
  }

  /**
   * The newest generation, opened (re-opened when another process replaced it since). Without `create`, null
   * when there is none yet; with it (under the lock), creates it and sweeps older generations and leftovers.
   */
  private async newest(options: { create: boolean }): Promise<Db | null> {
    const [newest] = await this.generations();
    if (newest === undefined && !options.create) return null;
    const generation = newest ?? 0;
    const file = this.fileOf(generation);
    const inode = inodeOf(file);
    if (!this.db || this.generation !== generation || this.inode !== inode || inode === -1) {
      await this.close();
      await ensureStateDir(this.stateDir);
      this.db = await openLmdb({ path: file, ...OPTIONS });
      await ownerOnlyFiles(file, `${file}-lock`);
      this.generation = generation;
      this.inode = inodeOf(file);
    }
    if (options.create) await this.sweep(generation);
    return this.db;
  }

  /** Under the lock: files of older generations and of interrupted rewrites hold vectors too, and nobody writes them. */
  private async sweep(keep: number): Promise<void> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const live = new Set([`${this.base}.${keep}.mdb`, `${this.base}.${keep}.mdb-lock`]);
    const stale = names.filter((n) => n.startsWith(`${this.base}.`) && !live.has(n));
    await Promise.all(stale.map((n) => rm(join(this.dir, n), { force: true })));
  }

  /**
   * Writes the kept vectors into a new generation and removes the old one: LMDB reuses freed pages but does
   * not clear them, so a removed vector would otherwise stay readable in the file (forget's scan looks for it).
   */
  private async rewrite(keeps: (hash: string) => boolean): Promise<number> {
    return this.lock.run(async () => {
      const db = await this.newest({ create: false });
      if (!db) return 0;
      // What a rewrite killed after its switch left (the replaced generation) goes even when nothing is removed now.
      await this.sweep(this.generation);
      let removed = 0;
      for (const key of db.getKeys()) if (!keeps(hashOf(key as Buffer))) removed++;
      if (removed === 0) return 0;
      const next = this.generation + 1;
      const temp = `${this.fileOf(next)}.tmp`;
      await rm(temp, { force: true });
      await rm(`${temp}-lock`, { force: true });
      const out = await openLmdb({ path: temp, ...OPTIONS });
      await ownerOnlyFiles(temp, `${temp}-lock`);
      let batch: [Buffer, Buffer][] = [];
      const flush = () => {
        out.transactionSync(() => {
          // In key order into an empty file: appended, pages filled whole (a rewrite also compacts).
          for (const [key, value] of batch) out.putSync(key, value, { append: true });
        });
        batch = [];
      };
      for (const { key, value } of db.getRange()) {
        if (!keeps(hashOf(key as Buffer))) continue;
        batch.push([Buffer.from(key as Buffer), Buffer.from(value)]);
        if (batch.length >= PER_TRANSACTION) flush();
      }
      if (batch.length > 0) flush();
      await out.close();
      await rm(`${temp}-lock`, { force: true });
      // The rename is the switch: killed before it, the old generation stays whole; after it, the new one is.
      await rename(temp, this.fileOf(next));
      await this.newest({ create: true });
      return removed;
    });
  }
}
