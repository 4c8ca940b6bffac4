// The one place Milvus filter expressions are built: every value is validated and escaped here.
import { InternalError, UsageError } from '../../errors.js';
import { isValidUserId } from '../../memory/ids.js';
import { MEMORY_STATUSES, MEMORY_TYPES } from '../../memory/model.js';
import type { RowKind } from '../../memory/records.js';
import type { IndexScope, LineSpan } from '../../services/ports.js';

export interface FilterSpec extends IndexScope {
  /** Rows whose chunk id is NOT among these (used to delete a file's stale chunks). */
  excludeChunkIds?: string[];
  /** Rows with one of these chunk ids (used to delete a file's stale chunks by primary key). */
  chunkIds?: string[];
  /** Rows whose chunk id starts with this hex prefix (used to page through the whole index). */
  chunkIdPrefix?: string;
  /** Rows of these kinds (a search ranks units, and reads windows only as a signal). */
  kinds?: RowKind[];
  /** Rows lying inside one of these line spans of their file. */
  within?: LineSpan[];
}

const MAX_VALUE_LENGTH = 4096;

/** A Milvus string literal; control characters are refused outright rather than escaped. */
export function quote(value: unknown): string {
  if (typeof value !== 'string') throw new InternalError(`filter value must be a string, got ${typeof value}`);
  if (value.length > MAX_VALUE_LENGTH) throw new UsageError('filter value too long');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new UsageError('filter value contains control characters');
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function list(values: readonly string[], check?: (v: string) => boolean, what = 'value'): string {
  if (values.length === 0) throw new InternalError(`empty ${what} list in a filter`);
  for (const v of values) {
    if (check && !check(v)) throw new UsageError(`invalid ${what} ${JSON.stringify(v).slice(0, 80)}`);
  }
  return `[${values.map(quote).join(', ')}]`;
}

const isStatus = (v: string) => (MEMORY_STATUSES as readonly string[]).includes(v);
const isType = (v: string) => (MEMORY_TYPES as readonly string[]).includes(v);
const isKind = (v: string) => v === 'unit' || v === 'window';

/** Chunk ids are memdir's own hashes: anything else is a bug upstream, not the caller's input. */
function chunkIdList(ids: readonly string[]): string {
  const bad = ids.find((v) => !/^[0-9a-f]{1,64}$/.test(v));
  if (bad !== undefined) throw new InternalError(`invalid chunk id ${JSON.stringify(bad).slice(0, 80)}`);
  return list(ids, undefined, 'chunk id');
}

/** Builds the boolean expression for a scope; every clause narrows. Returns "" for "everything". */
export function buildFilter(spec: FilterSpec): string {
  const clauses: string[] = [];
  if (spec.users !== 'all') {
    if (!Array.isArray(spec.users)) throw new InternalError('a filter needs an explicit user scope');
    clauses.push(`user in ${list(spec.users, isValidUserId, 'user id')}`);
  }
  if (spec.statuses) clauses.push(`status in ${list(spec.statuses, isStatus, 'status')}`);
  if (spec.types) clauses.push(`type in ${list(spec.types, isType, 'type')}`);
  if (spec.kinds) clauses.push(`kind in ${list(spec.kinds, isKind, 'row kind')}`);
  if (spec.notExpiredAt !== undefined) {
    if (!Number.isSafeInteger(spec.notExpiredAt)) throw new InternalError('expiry bound must be an integer');
    clauses.push(`expires > ${spec.notExpiredAt}`);
  }
  if (spec.paths) clauses.push(`path in ${list(spec.paths, undefined, 'path')}`);
  if (spec.memoryIds) clauses.push(`memory_id in ${list(spec.memoryIds, undefined, 'memory id')}`);
  if (spec.tags) clauses.push(`array_contains_any(tags, ${list(spec.tags, undefined, 'tag')})`);
  if (spec.excludeChunkIds && spec.excludeChunkIds.length > 0) clauses.push(`chunk_id not in ${chunkIdList(spec.excludeChunkIds)}`);
  if (spec.chunkIds) clauses.push(`chunk_id in ${chunkIdList(spec.chunkIds)}`);
  if (spec.within) {
    if (spec.within.length === 0) throw new InternalError('empty span list in a filter');
    const line = (n: number) => {
      if (!Number.isSafeInteger(n) || n < 0) throw new InternalError(`invalid line number ${n}`);
      return String(n);
    };
    clauses.push(spec.within.map((s) => `(path == ${quote(s.path)} and line_start >= ${line(s.lineStart)} and line_end <= ${line(s.lineEnd)})`).join(' or '));
  }
  if (spec.chunkIdPrefix !== undefined) {
    if (!/^[0-9a-f]{1,8}$/.test(spec.chunkIdPrefix)) throw new InternalError('invalid chunk id prefix');
    clauses.push(`chunk_id like "${spec.chunkIdPrefix}%"`);
  }
  return clauses.map((c) => `(${c})`).join(' and ');
}
