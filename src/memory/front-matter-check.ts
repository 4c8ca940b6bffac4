// The hand-written check of valid front matter: returns what the zod schema (front-matter-schema.ts) would, without
// loading zod, or undefined wherever the schema must decide (and word the error). It may be stricter, never laxer.
import { isValidMemoryId, isValidUserId } from './ids.js';
import { MAX_TAGS, MEMORY_STATUSES, MEMORY_TYPES, type MemoryStatus, type MemoryType } from './model.js';

/** Front matter as the schema returns it: each known key validated and normalised, the others dropped. */
export interface CheckedFrontMatter {
  id?: string;
  user?: string;
  type?: MemoryType;
  importance?: number;
  status?: MemoryStatus;
  created?: string;
  updated?: string;
  expires?: string | null;
  key?: string | null;
  supersedes?: string | string[] | null;
  superseded_by?: string | null;
  consolidated_into?: string | null;
  source?: string | null;
  sources?: string[] | null;
  tags?: string[] | null;
  confidence?: number | null;
}

/** The value is not one this check accepts: the schema decides. */
const NO = Symbol('no');
type Checked<T> = T | typeof NO;

// zod's z.number() refuses NaN and the infinities.
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const unit = (v: unknown): Checked<number> => (finite(v) && v >= 0 && v <= 1 ? v : NO);
const idString = (v: unknown): Checked<string> => (typeof v === 'string' && isValidMemoryId(v) ? v : NO);
const idList = (v: unknown): Checked<string[]> => (Array.isArray(v) && v.every((x) => idString(x) !== NO) ? (v as string[]) : NO);
const oneOf = <T extends string>(values: readonly T[], v: unknown): Checked<T> =>
  typeof v === 'string' && (values as readonly string[]).includes(v) ? (v as T) : NO;

function timestamp(v: unknown): Checked<string> {
  const d = v instanceof Date ? v : typeof v === 'string' ? new Date(v) : undefined;
  return d === undefined || Number.isNaN(d.getTime()) ? NO : d.toISOString();
}

const TAG = /^[^\n\r"\\]+$/;
function tags(v: unknown): Checked<string[]> {
  let list: string[];
  if (typeof v === 'string') list = v.split(',');
  else if (Array.isArray(v) && v.every((t) => typeof t === 'string' || finite(t))) list = v.map(String);
  else return NO;
  const out = list.map((t) => t.trim()).filter(Boolean);
  return out.length <= MAX_TAGS && out.every((t) => t.length <= 100 && TAG.test(t)) ? out : NO;
}

const nullable =
  <T>(check: (v: unknown) => Checked<T>) =>
  (v: unknown): Checked<T | null> =>
    v === null ? null : check(v);

const CHECKS: { [K in keyof CheckedFrontMatter]-?: (v: unknown) => Checked<CheckedFrontMatter[K]> } = {
  id: (v) => (typeof v === 'string' || finite(v) ? idString(String(v)) : NO),
  user: (v) => {
    if (typeof v !== 'string') return NO;
    const user = v.normalize('NFC');
    return isValidUserId(user) ? user : NO;
  },
  type: (v) => oneOf(MEMORY_TYPES, v),
  importance: unit,
  status: (v) => oneOf(MEMORY_STATUSES, v),
  created: timestamp,
  updated: timestamp,
  expires: nullable(timestamp),
  key: nullable((v) => (typeof v === 'string' && v.length >= 1 && v.length <= 200 ? v : NO)),
  supersedes: nullable((v) => (typeof v === 'string' ? idString(v) : Array.isArray(v) && v.length > 0 ? idList(v) : NO)),
  superseded_by: nullable(idString),
  consolidated_into: nullable(idString),
  source: nullable((v) => (typeof v === 'string' && v.length <= 500 ? v : NO)),
  sources: nullable(idList),
  tags: nullable(tags),
  confidence: nullable(unit),
};

/** What the schema would return for this front matter, or undefined where the schema must decide. */
export function checkFrontMatter(raw: Record<string, unknown>): CheckedFrontMatter | undefined {
  const out: Record<string, unknown> = {};
  for (const [key, check] of Object.entries(CHECKS) as [string, (v: unknown) => unknown][]) {
    if (!Object.hasOwn(raw, key) || raw[key] === undefined) continue;
    const value = check(raw[key]);
    if (value === NO) return undefined;
    out[key] = value;
  }
  return out as CheckedFrontMatter;
}
