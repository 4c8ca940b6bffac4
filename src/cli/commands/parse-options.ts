// Turns flag strings into typed values, with usage errors (exit 2) for bad ones.
import { UsageError } from '../../errors.js';
import { assertUserId } from '../../memory/ids.js';
import { MEMORY_TYPES, type MemoryType } from '../../memory/model.js';
import { cliSettings } from '../context.js';

/** --user, else the acting user ($MEM_USER). */
export function actingUser(flagValue: string | undefined): string | undefined {
  return flagValue ?? cliSettings().user;
}

export function requireUser(flagValue: string | undefined): string {
  const user = actingUser(flagValue);
  if (!user) throw new UsageError('--user is required (or set MEM_USER)');
  return assertUserId(user);
}

export function parseList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function parseImportance(value: string): number {
  // Decimal only: Number() would also read 0x1, 1e0 or 0b1 as 1.
  const n = /^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new UsageError(`--importance must be a decimal number from 0 to 1, got ${JSON.stringify(value)}`);
  return n;
}

export function parseTypes(value: string | undefined): MemoryType[] | undefined {
  if (!value) return undefined;
  const types = parseList(value);
  for (const t of types) {
    if (!(MEMORY_TYPES as readonly string[]).includes(t)) throw new UsageError(`--type must be among ${MEMORY_TYPES.join(', ')}; got ${JSON.stringify(t)}`);
  }
  return types as MemoryType[];
}

export function parsePositiveInt(value: string, name: string, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`${name} must be a whole number from 1 to ${max}`);
  return n;
}
