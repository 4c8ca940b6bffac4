// Validation and generation of user ids and memory ids: the values that end up in paths and filters.
import { randomBytes } from 'node:crypto';

import { UsageError } from '../errors.js';

// Letters (any script), digits and a few separators; must start with a letter or digit.
const USER_ID = /^[\p{L}\p{N}][\p{L}\p{N}._@-]{0,63}$/u;
// A hand-written file's id is its relative path, so an id may hold whatever a file name may (spaces, brackets,
// quotes, combining marks: `alice/my note (1)`, `josé/diary`): every id a search returns must be accepted. Ids are
// only ever looked up in the manifest and quoted by the filter builder, never used as a path. Refused: control
// characters and line separators, blanks at either end, and empty, "." or ".." segments.
const MEMORY_ID = /^[^\p{Cc}\p{Zl}\p{Zp}]{1,200}$/u;
// A key names a fact's slot (`residence`, `package-manager`, `editor.theme`): a name, not text, so markup, quotes,
// spaces and line breaks have no place in it. It is stored in front matter, filtered on, and shown to agents.
const MEMORY_KEY = /^[\p{L}\p{N}][\p{L}\p{N}_.:-]{0,99}$/u;
export const KEY_CHARSET = '1-100 letters, digits, "_", ".", ":" or "-", starting with a letter or digit';

export function isValidUserId(value: string): boolean {
  return USER_ID.test(value);
}

export function isValidMemoryId(value: string): boolean {
  if (!MEMORY_ID.test(value) || value.trim() !== value) return false;
  return value.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

export function isValidMemoryKey(value: string): boolean {
  return MEMORY_KEY.test(value);
}

export function assertUserId(value: string): string {
  if (!isValidUserId(value)) {
    throw new UsageError(
      `invalid user id ${JSON.stringify(value).slice(0, 80)}: use 1-64 letters, digits, ".", "_", "@" or "-", starting with a letter or digit`,
    );
  }
  return value;
}

export function assertMemoryId(value: string): string {
  if (!isValidMemoryId(value)) {
    throw new UsageError(`invalid memory id ${JSON.stringify(value).slice(0, 80)}`);
  }
  return value;
}

export function assertMemoryKey(value: string): string {
  if (!isValidMemoryKey(value)) throw new UsageError(`invalid key ${JSON.stringify(value).slice(0, 80)}: a key is a slot name of ${KEY_CHARSET}`);
  return value;
}

/** A new memory id: date, a slug of the text (ASCII words only) and a random suffix. */
export function newMemoryId(text: string, now: Date): string {
  const date = now.toISOString().slice(0, 10);
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter(Boolean)
    .slice(0, 6)
    .join('-')
    .slice(0, 48)
    .replace(/-+$/, '');
  const suffix = randomBytes(3).toString('hex');
  return slug ? `${date}-${slug}-${suffix}` : `${date}-${suffix}`;
}
