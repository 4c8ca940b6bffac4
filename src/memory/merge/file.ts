// memdir's merge of one memory file that both sides of a git merge changed: a day log gets both sides' entries, a
// memory both sides' changes, and when two bodies cannot be united the later `updated:` keeps the path while the
// other side's version is kept beside it as a memory it supersedes. Pure: texts in, texts out (the git merge driver,
// src/cli/merge-driver.ts, reads and writes the files).
import matter from 'gray-matter';

import { errorMessage } from '../../errors.js';
import { sha256 } from '../hash.js';
import type { MemoryDoc, MemoryMeta } from '../model.js';
import { parseMemory } from '../parse.js';
import { serializeMemory } from '../serialize.js';
import { joinLog, mergePreamble, splitLog, unionEntries } from './entries.js';
import { lineMerge } from './lines.js';
import { mergeMeta, unionList } from './meta.js';

export interface MergeFileInput {
  /** The file's path relative to the memory root (forward slashes): its folder names its user, its name its id. */
  path: string;
  /** The common ancestor's text; undefined (or empty) when both sides added the file. */
  base?: string;
  ours: string;
  theirs: string;
}

/** The other side's version of a memory whose body could not be united: a new file that the merged one supersedes. */
export interface KeptVersion {
  path: string;
  id: string;
  text: string;
}

export type MergeFileResult =
  | { ok: true; text: string; how: 'day-log' | 'united' | 'kept-both'; kept?: KeptVersion }
  /** Left to git's own conflict: a side (or the result) is not a memory file memdir can read. */
  | { ok: false; reason: string };

interface Side {
  text: string;
  doc: MemoryDoc;
  /** The known front matter keys the file itself writes (defaults it leaves out stay out). */
  keys: Set<string>;
}

// Not written into any file: a key a side leaves out is not added by the merge.
const NO_TIME = '1970-01-01T00:00:00.000Z';

function read(text: string, path: string): Side {
  const doc = parseMemory(text, { path, defaultUser: 'default', fallbackTime: NO_TIME });
  const data = matter(text, {}).data as Record<string, unknown>;
  return { text, doc, keys: new Set(Object.keys(data)) };
}

/** A day's episodic log, as `mem ingest` and capture name it. */
export function isDayLog(path: string): boolean {
  return /(?:^|\/)episodic\/\d{4}-\d{2}-\d{2}\.md$/i.test(path);
}

/** The side whose version stands where both changed the same thing: the later `updated:`, then the greater text. */
function winnerOf(a: Side, b: Side): 'a' | 'b' {
  const [ta, tb] = [Date.parse(a.doc.meta.updated), Date.parse(b.doc.meta.updated)];
  if (ta !== tb && !Number.isNaN(ta) && !Number.isNaN(tb)) return ta > tb ? 'a' : 'b';
  return a.text >= b.text ? 'a' : 'b';
}

function mergeBody(base: string | undefined, a: string, b: string): string | undefined {
  if (a === b || b === base) return a;
  if (a === base) return b;
  return lineMerge(base ?? '', a, b);
}

/** The kept version of the losing side, and the merged front matter that now supersedes it. */
function keepBoth(path: string, meta: MemoryMeta, loser: Side): { meta: MemoryMeta; kept: KeptVersion } {
  const hash = sha256(loser.text).slice(0, 8);
  const id = `${meta.id}.${hash}`;
  const supersedes = unionList(undefined, meta.supersedes, id) as string[];
  const keptMeta: MemoryMeta = { ...loser.doc.meta, id, status: 'superseded', superseded_by: meta.id };
  const keptKeys = new Set([...loser.keys, 'id', 'status', 'superseded_by']);
  return {
    meta: { ...meta, supersedes: supersedes.length === 1 ? supersedes[0]! : supersedes },
    kept: { path: path.replace(/\.md$/i, `.${hash}.md`), id, text: serializeMemory(keptMeta, loser.doc.body, keptKeys) },
  };
}

export function mergeMemoryFile(input: MergeFileInput): MergeFileResult {
  let sides: [Side | undefined, Side, Side];
  try {
    sides = [input.base ? read(input.base, input.path) : undefined, read(input.ours, input.path), read(input.theirs, input.path)];
  } catch (err) {
    return { ok: false, reason: errorMessage(err) };
  }
  const [o, a, b] = sides;
  const winner = winnerOf(a, b);
  const [first, second] = winner === 'a' ? [a, b] : [b, a];
  let meta = mergeMeta(o?.doc.meta, a.doc.meta, b.doc.meta, winner);
  const keys = new Set([...a.keys, ...b.keys]);
  let result: MergeFileResult;
  if (isDayLog(input.path) && a.doc.meta.type === 'episodic' && b.doc.meta.type === 'episodic') {
    const [lo, l1, l2] = [splitLog(o?.doc.body ?? ''), splitLog(first.doc.body), splitLog(second.doc.body)];
    const body = joinLog({ preamble: mergePreamble(lo.preamble, l1.preamble, l2.preamble), entries: unionEntries(lo.entries, l1.entries, l2.entries) });
    result = { ok: true, text: serializeMemory(meta, body, keys), how: 'day-log' };
  } else {
    const body = mergeBody(o?.doc.body, a.doc.body, b.doc.body);
    if (body !== undefined) result = { ok: true, text: serializeMemory(meta, body, keys), how: 'united' };
    else {
      const both = keepBoth(input.path, meta, second);
      meta = both.meta;
      keys.add('supersedes');
      result = { ok: true, text: serializeMemory(meta, first.doc.body, keys), how: 'kept-both', kept: both.kept };
    }
  }
  // What is written must read back as a memory: otherwise git's own conflict is the honest answer.
  try {
    read(result.text, input.path);
    if (result.kept) read(result.kept.text, result.kept.path);
  } catch (err) {
    return { ok: false, reason: `the merged file would not read back: ${errorMessage(err)}` };
  }
  return result;
}
