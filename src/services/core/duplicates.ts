// Ids and keys that must be unique but are not: one id for several files of one user (hand-written files may
// carry any id), several active memories filling one key. Found from the manifest, reported by path and line.
import { DuplicateIdError } from '../../errors.js';
import { decodeMemoryText } from '../../memory/decode.js';
import type { ManifestEntry, MemoryFiles } from '../ports.js';

/** Only the files are read (for the line of an id); sync imports this module, so nothing of sync's is used. */
type FilesDeps = { files: MemoryFiles };
/** The shape of sync's FileError: path, 1-based line, message. */
type FileError = { path: string; line: number; message: string };

/** What the checks need of a file: its manifest entry, or the same fields read from the file itself (doctor). */
export type IdEntry = Pick<ManifestEntry, 'memoryId' | 'user' | 'status' | 'key' | 'expires'> & Partial<Pick<ManifestEntry, 'supersedes'>>;

/** Ids compare in NFC: `josé` typed or listed in either Unicode form is the same id. */
export const sameId = (a: string, b: string) => a === b || a.normalize('NFC') === b.normalize('NFC');

// eslint-disable-next-line no-control-regex
const ASCII = /^[\u0000-\u007f]*$/;
// An ASCII id is its own NFC form: normalising each of 50,000 ids at every sync is skipped for them.

/** Paths of the memories with this id in the user's scope (every user's when none is given). */
export function pathsOf(entries: Map<string, ManifestEntry>, id: string, user?: string): string[] {
  return [...entries].filter(([, e]) => sameId(e.memoryId, id) && (user === undefined || e.user === user)).map(([p]) => p);
}

/** Line of the `id:` key in a memory file's front matter (1 when the id comes from the file name). */
export async function idLine(deps: FilesDeps, path: string): Promise<number> {
  try {
    const lines = decodeMemoryText(await deps.files.read(path), path).split(/\r?\n/);
    if (lines[0]?.trim() !== '---') return 1;
    for (let i = 1; i < lines.length && lines[i]!.trim() !== '---'; i++) if (/^["']?id["']?\s*:/.test(lines[i]!)) return i + 1;
  } catch {
    // Unreadable now: the path alone still says where.
  }
  return 1;
}

async function placesOf(deps: FilesDeps, paths: string[]): Promise<string> {
  const places = await Promise.all(paths.map(async (p) => `${p}:${await idLine(deps, p)}`));
  return places.join(', ');
}

/** The one path of the memory with this id in scope, undefined when there is none; several are an error naming each. */
export async function resolveId(deps: FilesDeps, entries: Map<string, ManifestEntry>, id: string, user?: string): Promise<string | undefined> {
  const paths = pathsOf(entries, id, user);
  if (paths.length <= 1) return paths[0];
  const users = [...new Set(paths.map((p) => entries.get(p)!.user))];
  const whose = users.length === 1 ? `user ${users[0]}` : `users ${users.join(', ')} (name one with --user)`;
  throw new DuplicateIdError(
    `memory id ${JSON.stringify(id)} is used by ${paths.length} files of ${whose}: ${await placesOf(deps, paths)}; give each file its own id`,
  );
}

/** Every file whose id another file of the same user also carries, as errors by path and line. */
export async function duplicateIdErrors(deps: FilesDeps, entries: Map<string, IdEntry>): Promise<FileError[]> {
  // Every sync runs this over all entries (50,000 at scale): a set of ids by user, in one forEach (no pair per entry);
  // only an id seen twice is grouped with its paths, in a second pass that the usual root (no duplicate) never makes.
  const byUser = new Map<string, Set<string>>();
  const twice = new Set<string>();
  let user: string | undefined;
  let seen = new Set<string>();
  entries.forEach((e) => {
    // Entries come by path, so one user's are together: their set is looked up once per user, not per entry.
    if (e.user !== user) {
      user = e.user;
      const known = byUser.get(user);
      if (known) seen = known;
      else byUser.set(user, (seen = new Set()));
    }
    const id = nfc(e.memoryId);
    if (seen.has(id)) twice.add(id);
    else seen.add(id);
  });
  if (twice.size === 0) return [];
  // Grouped as the errors are listed: users, then ids, then paths, each in the order the entries first name them.
  const groups = new Map<string, Map<string, string[]>>([...byUser.keys()].map((u) => [u, new Map()]));
  for (const [path, e] of entries) {
    const id = nfc(e.memoryId);
    if (!twice.has(id)) continue;
    const byId = groups.get(e.user)!;
    byId.set(id, [...(byId.get(id) ?? []), path]);
  }
  const errors: FileError[] = [];
  for (const byId of groups.values()) {
    for (const paths of byId.values()) {
      if (paths.length < 2) continue;
      for (const path of paths) {
        const others = paths.filter((p) => p !== path);
        errors.push({
          path,
          line: await idLine(deps, path),
          message: `duplicate id ${JSON.stringify(entries.get(path)!.memoryId)}: also used by ${others.join(', ')}`,
        });
      }
    }
  }
  return errors;
}

/** An id in NFC (an ASCII id is its own). */
const nfc = (id: string): string => (ASCII.test(id) ? id : id.normalize('NFC'));

/** Active, unexpired memories of one user that fill the same key: the slot should hold one value. */
export function duplicateKeys(entries: Map<string, IdEntry>, now: number): { user: string; key: string; paths: string[] }[] {
  const groups = new Map<string, { user: string; key: string; paths: string[] }>();
  for (const [path, e] of entries) {
    if (!e.key || e.status !== 'active' || (e.expires !== undefined && e.expires <= now)) continue;
    const id = `${e.user}\u0000${e.key}`;
    const group = groups.get(id) ?? { user: e.user, key: e.key, paths: [] };
    group.paths.push(path);
    groups.set(id, group);
  }
  return [...groups.values()].filter((g) => g.paths.length > 1);
}

/**
 * Active, unexpired memories of one user that supersede the same memory of that user: both stay active (a correction
 * supersedes what it names, not its siblings), so a person who corrected twice by hand sees both (`mem doctor`).
 */
export function rivalCorrections(entries: Map<string, IdEntry>, now: number): { user: string; target: string; members: { path: string; id: string }[] }[] {
  const known = new Set<string>();
  for (const e of entries.values()) known.add(`${e.user}\u0000${e.memoryId}`);
  const groups = new Map<string, { user: string; target: string; members: { path: string; id: string }[] }>();
  for (const [path, e] of entries) {
    if (e.supersedes === undefined || e.status !== 'active' || (e.expires !== undefined && e.expires <= now)) continue;
    for (const target of new Set(typeof e.supersedes === 'string' ? [e.supersedes] : e.supersedes)) {
      // A link to itself, to nothing or to another user's memory is a link problem of its own (services/core/links.ts).
      if (target === e.memoryId || !known.has(`${e.user}\u0000${target}`)) continue;
      const id = `${e.user}\u0000${target}`;
      const group = groups.get(id) ?? { user: e.user, target, members: [] };
      group.members.push({ path, id: e.memoryId });
      groups.set(id, group);
    }
  }
  return [...groups.values()].filter((g) => g.members.length > 1);
}
