// Validation and generation of user ids and memory ids: the values that end up in paths and filters.
import { randomBytes } from 'node:crypto';

import { UsageError } from '../errors.js';

// Letters (any script), digits and a few separators; must start with a letter or digit.
const USER_ID = /^[\p{L}\p{N}][\p{L}\p{N}._@-]{0,63}$/u;
// Memory ids may contain "/" (hand-written files get their relative path as id) but no "." segments.
const MEMORY_ID = /^[\p{L}\p{N}_][\p{L}\p{N}._\-/]{0,199}$/u;

export function isValidUserId(value: string): boolean {
  return USER_ID.test(value);
}

export function isValidMemoryId(value: string): boolean {
  if (!MEMORY_ID.test(value)) return false;
  return value.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
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
