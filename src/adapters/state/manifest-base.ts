// The manifest's base file: MessagePack (msgpackr records) after a one-line header naming its version, replaced
// atomically. A base of any other form or version reads as absent: the index is derived, the next sync rebuilds it.
import { randomUUID } from 'node:crypto';
import { open, readFile, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

import { Packr } from 'msgpackr';

import type { ManifestEntry } from '../../services/ports.js';

/**
 * 6: the base as MessagePack records, the journal as before (JSON lines). Every sync reads the whole base, a no-op
 * too: at 50,000 files JSON.parse of its 9 MB took ~150 ms and msgpackr's decoding of the same entries ~55 ms.
 * The file keeps its name (`manifest-<scope>.json`): the state layout,
 * `mem forget`'s cleanup and the bench scripts find it where they did.
 */
export const BASE_VERSION = 6;
const HEADER = Buffer.from(`memdir-manifest ${BASE_VERSION}\n`);

/** What a base holds: the journal that belongs to it and every entry as saved. */
export interface BaseContent {
  version: number;
  journal: string;
  /** Entries as stored. */
  files: Iterable<[string, ManifestEntry]>;
  /** Bytes of the base file (the journal is compacted into it once it outgrows a share of this). */
  bytes: number;
}

/** Records (one key list per shape of entry, written once) keep the file small and its decoding fast. */
const packr = () => new Packr({ useRecords: true });

/** The base's content, or null when it is missing, damaged or of another version (JSON before 6, or a later one). */
export async function readBase(file: string): Promise<BaseContent | null> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch {
    return null;
  }
  return bytes.subarray(0, HEADER.length).equals(HEADER) ? packed(bytes) : null;
}

function packed(bytes: Buffer): BaseContent | null {
  let data: { journal?: unknown; paths?: unknown; entries?: unknown };
  try {
    data = packr().unpack(bytes.subarray(HEADER.length)) as typeof data;
  } catch {
    return null;
  }
  const { journal, paths, entries } = data ?? {};
  if (typeof journal !== 'string' || !Array.isArray(paths) || !Array.isArray(entries) || paths.length !== entries.length) return null;
  return { version: BASE_VERSION, journal, files: zip(paths as string[], entries as ManifestEntry[]), bytes: bytes.length };
}

function* zip(paths: string[], entries: ManifestEntry[]): Generator<[string, ManifestEntry]> {
  for (let i = 0; i < paths.length; i++) yield [paths[i]!, entries[i]!];
}

/**
 * Writes the entries as a new base naming `journal`, to a temporary file renamed over the base once it is on disk
 * (as write-file-atomic does). Temporary files a killed write left are removed first (they name memories too).
 * Returns the base's size in bytes.
 */
export async function writeBase(file: string, journal: string, entries: Map<string, ManifestEntry>): Promise<number> {
  const prefix = `${basename(file)}.base-`;
  const stale = (await readdir(dirname(file))).filter((n) => n.startsWith(prefix));
  await Promise.all(stale.map((n) => rm(join(dirname(file), n), { force: true })));
  const paths: string[] = [];
  const values: ManifestEntry[] = [];
  for (const [path, entry] of entries) {
    paths.push(path);
    values.push(entry);
  }
  // ~6 MB at 50,000 files, in one buffer.
  const body = packr().pack({ journal, paths, entries: values });
  const temp = `${file}.base-${randomUUID()}`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(HEADER);
    await handle.writeFile(body);
    await handle.datasync();
    await handle.close();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw err;
  }
  await rename(temp, file);
  return HEADER.length + body.length;
}
