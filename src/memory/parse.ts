// Parses a memory file's text (front matter + Markdown body) into a MemoryDoc. Pure: no file access.
import matter from 'gray-matter';

import { InvalidMemoryError, MisplacedMemoryError, errorMessage } from '../errors.js';
import { conflictMarkerLine } from './conflict.js';
import { lineOfKey, normaliseFrontMatter, type MetaDefaults } from './front-matter.js';
import { isValidUserId } from './ids.js';
import { DEFAULT_TYPE, MAX_PATH_CHARS, MEMORY_TYPES, type MemoryDoc, type MemoryType } from './model.js';

export interface ParseContext {
  /** Path relative to the memory root, forward slashes. */
  path: string;
  /** The user of a file at the root that names none (the root's configured owner, never the acting user). */
  defaultUser: string;
  /** ISO time used when the file has no `created` (typically the file's mtime). */
  fallbackTime: string;
}

/**
 * The user a file's folder names: the first folder (NFC-normalised), or undefined for a file at the
 * root. A first folder that is not a valid user id is refused by path rather than handed to anyone.
 */
export function folderUser(path: string): string | undefined {
  const folders = path.split('/').slice(0, -1);
  if (folders[0] === undefined) return undefined;
  const user = folders[0].normalize('NFC');
  if (!isValidUserId(user)) {
    throw new MisplacedMemoryError(
      path,
      0,
      `folder ${JSON.stringify(folders[0]).slice(0, 80)} is not a valid user id (1-64 letters, digits, ".", "_", "@" or "-", starting with a letter or digit): not indexed; rename the folder`,
    );
  }
  return user;
}

/** Defaults from the folder layout `<user>/<type>/<name>.md`; the id defaults to the path without `.md`. */
export function defaultsFromPath(ctx: ParseContext): MetaDefaults {
  const segments = ctx.path.split('/');
  const folders = segments.slice(0, -1);
  const user = folderUser(ctx.path) ?? ctx.defaultUser;
  const typeFolder = folders.find((f) => (MEMORY_TYPES as readonly string[]).includes(f));
  const type = (typeFolder as MemoryType | undefined) ?? (folders.includes('daily') ? 'episodic' : DEFAULT_TYPE);
  // A daily log named by its date (2026-11-30.md) is dated by its name, not by when it was last saved.
  const dated = /^(\d{4}-\d{2}-\d{2})/.exec(segments[segments.length - 1] ?? '');
  const time = dated && !Number.isNaN(Date.parse(dated[1]!)) ? new Date(`${dated[1]}T00:00:00Z`).toISOString() : ctx.fallbackTime;
  return { id: ctx.path.replace(/\.md$/i, ''), user, type, time };
}

interface YamlError {
  mark?: { line?: number };
  reason?: string;
}

export function parseMemory(text: string, ctx: ParseContext): MemoryDoc {
  // Each row carries its file's path: a longer one than the index holds failed the whole sync's write.
  const pathChars = ctx.path.length > MAX_PATH_CHARS ? Array.from(ctx.path).length : 0;
  if (pathChars > MAX_PATH_CHARS) {
    throw new InvalidMemoryError(
      ctx.path,
      0,
      `path is ${pathChars} characters, over the ${MAX_PATH_CHARS} the index holds: not indexed; shorten its folders or its name`,
    );
  }
  // Both sides of a merge would be indexed as one memory (the old fact beside its correction): the file is
  // refused as invalid instead, so its last good version stays indexed until the person resolves it.
  const conflict = conflictMarkerLine(text);
  if (conflict !== undefined) {
    throw new InvalidMemoryError(
      ctx.path,
      conflict,
      'unresolved merge conflict (git conflict markers): not indexed, its last indexed version stays; keep the right text, delete the <<<<<<< ======= >>>>>>> lines and save',
    );
  }
  let parsed: matter.GrayMatterFile<string>;
  try {
    // Passing options (even empty) keeps gray-matter from caching every file's text in memory.
    parsed = matter(text, {});
  } catch (err) {
    const yamlErr = err as YamlError;
    // mark.line counts from the opening fence's line break (0-based), so +1 gives the file line.
    const line = typeof yamlErr.mark?.line === 'number' ? yamlErr.mark.line + 1 : 1;
    throw new InvalidMemoryError(ctx.path, line, `malformed YAML front matter: ${yamlErr.reason ?? errorMessage(err)}`);
  }
  const data: unknown = parsed.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new InvalidMemoryError(ctx.path, 1, 'front matter must be a mapping of keys to values');
  }
  const prefix = text.slice(0, text.length - parsed.content.length);
  const bodyStartLine = prefix.split('\n').length;
  // gray-matter's `matter` keeps the newline after the opening fence; drop it so line 1 is the first key.
  const frontMatter = (parsed.matter ?? '').replace(/^\r?\n/, '');
  const defaults = defaultsFromPath(ctx);
  const meta = normaliseFrontMatter(data as Record<string, unknown>, defaults, ctx.path, frontMatter);
  // The folder names the user: a file in dana/ cannot plant a memory in erin's scope.
  if (ctx.path.includes('/') && meta.user !== defaults.user) {
    throw new MisplacedMemoryError(
      ctx.path,
      lineOfKey(frontMatter, 'user'),
      `front matter names user ${JSON.stringify(meta.user)} but the file is in ${JSON.stringify(defaults.user)}'s folder: not indexed; move the file to ${meta.user}/ or fix the user line`,
    );
  }
  return { path: ctx.path, meta, body: parsed.content, bodyStartLine };
}

/** The line (1-based, in the file) of a top-level front matter key, or 1 when the file has none. */
export function frontMatterLine(text: string, key: string): number {
  try {
    return lineOfKey((matter(text, {}).matter ?? '').replace(/^\r?\n/, ''), key);
  } catch {
    return 1;
  }
}
