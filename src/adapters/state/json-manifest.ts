// ManifestStore as one file under `.mem/` (the base, replaced atomically: manifest-base.ts) plus a journal of the
// entries saved since, one JSON line each, and an append-only log of the paths a sync is writing since the last save;
// each file's chunk list lives apart, in an LMDB file beside them (lmdb-chunk-lists.ts).
import { randomUUID } from 'node:crypto';
import { access, appendFile, open, readFile, rm, stat } from 'node:fs/promises';
import writeFileAtomic from 'write-file-atomic';

import type { ChunkList, ChunkRef, ManifestEntry, ManifestStore } from '../../services/ports.js';
import { stateLayoutAt } from '../../memory/layout.js';
import { LmdbChunkLists, listKey } from './lmdb-chunk-lists.js';
import { readBase, writeBase } from './manifest-base.js';
import { ensureStateDir } from './state-dir.js';

// The base's version (manifest-base.ts) is the only one read: a manifest of another version, like a missing or
// damaged one, reads as absent, and the next sync indexes every file again (vectors from the cache).

// A save appends only the entries that changed; the base is rewritten when the journal outgrows this share
// of it (so rewrites cost O(entries) in total over a full index, not per save), or when an entry is removed.
const COMPACT_SHARE = 0.5;
const COMPACT_MIN_BYTES = 256 * 1024;

export class JsonManifest implements ManifestStore {
  private readonly file: string;
  private readonly journalFile: string;
  private readonly pendingFile: string;
  /** The instance id of the collection the entries describe (ManifestStore.bindIndex). */
  private readonly instanceFile: string;
  /** What the files on disk say, as of this process's last load or save: a save writes only what differs. */
  private saved: { journal: string; entries: Map<string, ManifestEntry>; baseBytes: number; journalBytes: number } | null = null;
  private readonly lists: LmdbChunkLists;

  /** `scope` separates manifests of different indexes (e.g. embedding model) of one root; `stateDir` is its `.mem/`. */
  constructor(
    private readonly stateDir: string,
    scope: string,
  ) {
    this.file = stateLayoutAt(stateDir).manifest(scope);
    this.journalFile = `${this.file}.journal`;
    this.pendingFile = `${this.file}.pending`;
    this.instanceFile = `${this.file}.index`;
    this.lists = new LmdbChunkLists(stateDir, `${this.file}.chunks`);
  }

  async exists(): Promise<boolean> {
    return access(this.file).then(
      () => true,
      () => false,
    );
  }

  /** The newest mtime of the base and its journal: every save writes one of them (a no-op's writes neither). */
  async savedAt(): Promise<number | null> {
    const times = await Promise.all(
      [this.file, this.journalFile].map((f) =>
        stat(f).then(
          (s) => s.mtimeMs,
          () => null,
        ),
      ),
    );
    const known = times.filter((t): t is number => t !== null);
    return known.length > 0 ? Math.max(...known) : null;
  }

  async load(): Promise<Map<string, ManifestEntry> | null> {
    // A compaction between reading the base and its journal shows as a journal of another base: read again.
    let loaded = await this.read(false);
    for (let attempt = 0; loaded === 'raced'; attempt++) loaded = await this.read(attempt >= 2);
    this.saved = loaded;
    if (loaded === null) return null;
    const entries = new Map(loaded.entries);
    // A path written after the last save may have any rows in the index: its entry vouches for none of them.
    for (const path of await this.pendingPaths()) {
      const known = entries.get(path);
      entries.set(path, { ...(known ?? UNKNOWN), size: -1, mtimeMs: -1, sha: '', unknownRows: true });
    }
    return entries;
  }

  async markPending(paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    await ensureStateDir(this.stateDir);
    // One JSON string per line: a line cut short by a kill fails to parse and is skipped (its batch had not started writing).
    await appendFile(this.pendingFile, paths.map((p) => `${JSON.stringify(p)}\n`).join(''), { mode: 0o600 });
  }

  async indexInstance(): Promise<string | null> {
    const text = await readFile(this.instanceFile, 'utf8').catch(() => '');
    return text.trim() || null;
  }

  async bindIndex(instance: string): Promise<void> {
    await ensureStateDir(this.stateDir);
    await writeFileAtomic(this.instanceFile, `${instance}\n`, { mode: 0o600 });
  }

  async clear(): Promise<void> {
    this.saved = null;
    await rm(this.instanceFile, { force: true });
    await rm(this.file, { force: true });
    await rm(this.journalFile, { force: true });
    await rm(this.pendingFile, { force: true });
    await this.lists.clear();
  }

  needsRewrite(): boolean {
    return this.saved !== null && this.saved.journal === '';
  }

  async chunksOf(entries: Iterable<[string, ManifestEntry]>): Promise<Map<string, ChunkRef[]>> {
    const wanted = new Map(entries);
    const found = new Map<string, ChunkRef[]>();
    for (const [path, list] of await this.lists.get([...wanted.keys()])) {
      if (describes(list.sha, wanted.get(path)!)) found.set(path, list.chunks);
    }
    return found;
  }

  async putChunks(lists: ChunkList[]): Promise<void> {
    await this.lists.put(lists);
  }

  async textHashes(entries: Map<string, ManifestEntry>): Promise<Set<string>> {
    const keys = new Map<string, string>();
    for (const path of entries.keys()) keys.set(listKey(path), path);
    const hashes = new Set<string>();
    await this.lists.forEach(keys, (path, list) => {
      if (describes(list.sha, entries.get(path)!)) for (const c of list.chunks) hashes.add(c.textHash);
    });
    return hashes;
  }

  async save(entries: Map<string, ManifestEntry>): Promise<void> {
    await ensureStateDir(this.stateDir);
    const saved = this.saved;
    // Unchanged entries are the very objects loaded or saved (the sync passes them through): compared by identity.
    const removed = saved === null ? [] : keysWhere(saved.entries, (path) => !entries.has(path));
    // A base whose journal a kill left out gets a journal.
    if (saved === null || removed.length > 0 || saved.journal === '') {
      // A removed entry leaves the journal with the base: `mem forget` promises that no name of a forgotten memory stays.
      await this.compact(entries);
      // Only once no entry names them (killed in between, a list of no entry is never read: see chunksOf).
      await this.lists.remove(removed);
    } else {
      const changed: [string, ManifestEntry][] = [];
      for (const [path, entry] of entries) if (saved.entries.get(path) !== entry) changed.push([path, entry]);
      if (changed.length > 0) {
        const lines = changed.map(([p, e]) => JSON.stringify({ p, e }));
        // Each append starts on a line of its own: a line torn by a kill never swallows the next save's first entry.
        const text = `\n${lines.join('\n')}\n`;
        await appendDurably(this.journalFile, text);
        saved.journalBytes += Buffer.byteLength(text);
        for (const [path, entry] of changed) saved.entries.set(path, entry);
        if (saved.journalBytes > Math.max(COMPACT_MIN_BYTES, COMPACT_SHARE * saved.baseBytes)) await this.compact(entries);
      }
    }
    // Only once the entries are saved: killed in between, the pending paths are re-read needlessly, never trusted wrongly.
    await rm(this.pendingFile, { force: true });
  }

  /** Writes all entries as a new base with a new journal name, then starts that journal empty. */
  private async compact(entries: Map<string, ManifestEntry>): Promise<void> {
    const journal = randomUUID();
    const baseBytes = await writeBase(this.file, journal, entries);
    // Killed before this, the old journal names another base and is ignored: the new base already holds its entries.
    const header = `${JSON.stringify({ journal })}\n`;
    await writeFileAtomic(this.journalFile, header, { mode: 0o600 });
    this.saved = { journal, entries: new Map(entries), baseBytes, journalBytes: Buffer.byteLength(header) };
  }

  /** The base and its journal; 'raced' when the journal names another base (unless `settled`: then the base alone). */
  private async read(settled: boolean): Promise<NonNullable<JsonManifest['saved']> | 'raced' | null> {
    const data = await readBase(this.file);
    // A missing, damaged or other version's manifest only costs a full re-scan; the files are the truth.
    if (!data) return null;
    const entries = new Map<string, ManifestEntry>(data.files);
    const baseBytes = data.bytes;
    // Without its journal the base is rewritten by the next save (journal '': see needsRewrite).
    const alone = { journal: '', entries, baseBytes, journalBytes: 0 };
    let journal: string;
    try {
      journal = await readFile(this.journalFile, 'utf8');
    } catch {
      // Killed between writing a base and its journal: the base holds every entry.
      return alone;
    }
    const lines = journal.split('\n');
    const header = parseLine(lines[0] ?? '') as { journal?: unknown } | null;
    // Another base's journal: a compaction ran while we read (read again), or was killed before it replaced the
    // journal (its base holds every entry; the old journal's are older).
    if (header?.journal !== data.journal) return settled ? alone : 'raced';
    for (const record of journalRecords(lines)) entries.set(record.p, record.e);
    return { journal: data.journal, entries, baseBytes, journalBytes: journal.length };
  }

  private async pendingPaths(): Promise<string[]> {
    let text: string;
    try {
      text = await readFile(this.pendingFile, 'utf8');
    } catch {
      return [];
    }
    const paths: string[] = [];
    for (const line of text.split('\n')) {
      try {
        const path = JSON.parse(line) as unknown;
        if (typeof path === 'string') paths.push(path);
      } catch {
        // An empty or torn line.
      }
    }
    return paths;
  }
}

function keysWhere(entries: Map<string, ManifestEntry>, test: (path: string) => boolean): string[] {
  const keys: string[] = [];
  for (const path of entries.keys()) if (test(path)) keys.push(path);
  return keys;
}

/**
 * Whether a list recorded for content `sha` describes the entry's rows: the same content, or an entry that vouches
 * for no content (sha '': its file was being written, or its rows restatused, when a sync stopped; its last list
 * is the best known, and a sync removes such a file's rows by path anyway: see ManifestEntry.unknownRows).
 */
function describes(sha: string, entry: ManifestEntry): boolean {
  return entry.sha === '' || sha === entry.sha;
}

/**
 * The journal's entries after its header, in order. Parsed as one JSON array (one call instead of one per line: a
 * journal grows to half the base, thousands of lines); a line an append left torn makes that fail, and then the
 * lines are parsed one by one, the torn one skipped (its save had not finished: the pending log still names its path).
 */
function journalRecords(lines: string[]): { p: string; e: ManifestEntry }[] {
  const body = lines.slice(1).filter((line) => line.length > 0);
  let records: unknown[];
  try {
    records = JSON.parse(`[${body.join(',')}]`) as unknown[];
  } catch {
    records = body.map(parseLine);
  }
  return records.filter((r): r is { p: string; e: ManifestEntry } => {
    const record = r as { p?: unknown; e?: unknown } | null;
    return !!record && typeof record.p === 'string' && typeof record.e === 'object' && record.e !== null;
  });
}

function parseLine(line: string): unknown {
  if (line.length === 0) return null;
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return null;
  }
}

/** Appends and waits for the disk, as the atomic base write does: a save that returned survives a power cut. */
async function appendDurably(file: string, text: string): Promise<void> {
  const handle = await open(file, 'a', 0o600);
  try {
    await handle.appendFile(text);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

const UNKNOWN: ManifestEntry = { size: -1, mtimeMs: -1, sha: '', memoryId: '', user: '', type: 'semantic', status: 'active', chunkCount: 0 };
