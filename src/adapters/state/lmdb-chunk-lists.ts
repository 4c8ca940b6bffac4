// The manifest's chunk lists (each file's chunk ids and text hashes) in one LMDB file beside it, keyed by a hash of
// the path: read only for the files a sync rewrites or removes, so the manifest held in memory stays small.
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';

import type { RootDatabase } from 'lmdb';

import type { ChunkList, ChunkRef } from '../../services/ports.js';
import { openLmdb } from './lmdb-open.js';
import { ensureStateDir, ownerOnlyFiles } from './state-dir.js';
import { inodeOf } from './inode.js';

type Db = RootDatabase<Buffer, Buffer>;

/**
 * A map as large as the store will ever get, set once: opened without one, lmdb starts with a 128 KiB map and doubles
 * it as the store grows, keeping every earlier map, and the pages a write touched stay resident in each: 50,000 lists
 * put a hundred at a time (a 23 MB store) left 22 MiB more resident than with one map.
 * Address space only: the file grows as written, and lmdb still grows the map if a store ever outgrows it.
 */
const MAP_BYTES = 2 ** 32;

const OPTIONS = { noSubdir: true, keyEncoding: 'binary', encoding: 'binary', compression: false, cache: false, mapSize: MAP_BYTES } as const;

/** Lists per write transaction: bounds the dirty pages LMDB holds in memory (a few hundred bytes each). */
const PER_TRANSACTION = 5_000;

// Values: 1, the sha (32 bytes), then per chunk its id (16 bytes) and text hash (32 bytes): 48 bytes a row where
// JSON took ~110 characters; ids and hashes of another shape (none memdir makes) are kept as JSON after a 0.
const PACKED = 1;
const AS_JSON = 0;
const ID_BYTES = 16;
const HASH_BYTES = 32;
const HEX_ID = /^[0-9a-f]{32}$/;
const HEX_HASH = /^[0-9a-f]{64}$/;

/** The stored list of a file: the content it was written for, and its rows. */
export interface StoredList {
  sha: string;
  chunks: ChunkRef[];
}

/**
 * A path's key is its SHA-256, not the path: a removed list's bytes may stay in LMDB's free pages, and neither the
 * key nor the value (hashes only) holds a memory's name or text (the promise `mem forget` makes for `.mem/`).
 * The store stays open between calls, as the vector cache does, and is opened again when its file was replaced or
 * removed (a rebuild in another process). Opened and closed for every call, as it first was, lmdb's free-page search
 * failed in the middle of a write at 50,000 files ("Invalid zero size key", "mdb_page_alloc error", MDB_BAD_VALSIZE:
 * two full indexes out of two, at 9.5 and 20.5 MB of store).
 */
export class LmdbChunkLists {
  private db: Db | null = null;
  private inode = -1;

  constructor(
    private readonly stateDir: string,
    private readonly file: string,
  ) {}

  async get(paths: string[]): Promise<Map<string, StoredList>> {
    const found = new Map<string, StoredList>();
    if (paths.length === 0) return found;
    await this.using(false, async (db) => {
      const values = await db.getMany(paths.map(keyOf));
      values.forEach((bytes, i) => {
        if (bytes) found.set(paths[i]!, decode(bytes));
      });
    });
    return found;
  }

  async put(lists: ChunkList[]): Promise<void> {
    if (lists.length === 0) return;
    // In key order: LMDB then fills each page before it opens the next, where random order leaves them half full
    // (50,000 lists of 1-8 rows in one put: 16.8 MB of file sorted, 47.1 MB not).
    const keyed = lists.map((list) => ({ key: keyOf(list.path), list })).sort((a, b) => Buffer.compare(a.key, b.key));
    await this.using(true, async (db) => {
      for (let i = 0; i < keyed.length; i += PER_TRANSACTION) {
        db.transactionSync(() => {
          for (const { key, list } of keyed.slice(i, i + PER_TRANSACTION)) db.putSync(key, encode(list));
        });
      }
    });
  }

  async remove(paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    await this.using(false, async (db) => {
      for (let i = 0; i < paths.length; i += PER_TRANSACTION) {
        db.transactionSync(() => {
          for (const path of paths.slice(i, i + PER_TRANSACTION)) db.removeSync(keyOf(path));
        });
      }
    });
  }

  /** Calls `visit` with each stored list whose key is one of `keys` (hex of keyOf), reading the store in key order. */
  async forEach(keys: Map<string, string>, visit: (path: string, list: StoredList) => void): Promise<void> {
    await this.using(false, async (db) => {
      for (const { key, value } of db.getRange()) {
        const path = keys.get(key.toString('hex'));
        if (path !== undefined) visit(path, decode(value));
      }
    });
  }

  async clear(): Promise<void> {
    await this.close();
    await rm(this.file, { force: true });
    await rm(`${this.file}-lock`, { force: true });
  }

  /** Lets the store's file go (the next call opens it again). */
  async close(): Promise<void> {
    const db = this.db;
    this.db = null;
    this.inode = -1;
    await db?.close();
  }

  /** Runs `work` on the open store (opened, or created only to write, when needed); nothing to do when there is no store. */
  private async using(create: boolean, work: (db: Db) => Promise<void>): Promise<void> {
    if (create) await ensureStateDir(this.stateDir);
    const inode = inodeOf(this.file);
    if (inode === -1 && !create) return this.close();
    if (!this.db || this.inode !== inode || inode === -1) {
      await this.close();
      this.db = await openLmdb({ path: this.file, ...OPTIONS });
      await ownerOnlyFiles(this.file, `${this.file}-lock`);
      this.inode = inodeOf(this.file);
    }
    await work(this.db);
  }
}

/** The key of a path's list, in hex: how forEach names the lists it wants. */
export function listKey(path: string): string {
  return keyOf(path).toString('hex');
}

function keyOf(path: string): Buffer {
  return createHash('sha256').update(path).digest();
}

function encode(list: ChunkList): Buffer {
  const packable = HEX_HASH.test(list.sha) && list.chunks.every((c) => HEX_ID.test(c.id) && HEX_HASH.test(c.textHash));
  if (!packable) return Buffer.concat([Buffer.from([AS_JSON]), Buffer.from(JSON.stringify({ sha: list.sha, chunks: list.chunks }), 'utf8')]);
  const out = Buffer.alloc(1 + HASH_BYTES + list.chunks.length * (ID_BYTES + HASH_BYTES));
  out[0] = PACKED;
  out.write(list.sha, 1, 'hex');
  let at = 1 + HASH_BYTES;
  for (const c of list.chunks) {
    at += out.write(c.id, at, 'hex');
    at += out.write(c.textHash, at, 'hex');
  }
  return out;
}

function decode(bytes: Buffer): StoredList {
  if (bytes[0] !== PACKED) return JSON.parse(bytes.subarray(1).toString('utf8')) as StoredList;
  const sha = bytes.toString('hex', 1, 1 + HASH_BYTES);
  const chunks: ChunkRef[] = [];
  for (let at = 1 + HASH_BYTES; at + ID_BYTES + HASH_BYTES <= bytes.length; at += ID_BYTES + HASH_BYTES) {
    chunks.push({ id: bytes.toString('hex', at, at + ID_BYTES), textHash: bytes.toString('hex', at + ID_BYTES, at + ID_BYTES + HASH_BYTES) });
  }
  return { sha, chunks };
}
