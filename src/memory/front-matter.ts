// Validates and normalises raw front matter into MemoryMeta; errors point at the offending line.
import { z } from 'zod';

import { InvalidMemoryError } from '../errors.js';
import { parseStrictDate } from './dates.js';
import { isValidMemoryId, isValidUserId } from './ids.js';
import { DEFAULT_IMPORTANCE, DEFAULT_TYPE, KNOWN_KEYS, MAX_TAGS, MEMORY_STATUSES, MEMORY_TYPES, type MemoryMeta, type MemoryType } from './model.js';

// YAML turns unquoted timestamps into Date objects; accept both and normalise to ISO strings.
const timestamp = z.union([z.date(), z.string()]).transform((v, ctx) => {
  const d = v instanceof Date ? v : new Date(v);
  if (Number.isNaN(d.getTime())) {
    ctx.addIssue({ code: 'custom', message: `not a date: ${JSON.stringify(v)}` });
    return z.NEVER;
  }
  return d.toISOString();
});

const idString = z.string().refine(isValidMemoryId, 'not a valid memory id');

const schema = z.object({
  id: z.union([z.string(), z.number()]).transform(String).pipe(idString).optional(),
  // NFC: a name typed on one system and saved on another is the same user.
  user: z
    .string()
    .transform((v) => v.normalize('NFC'))
    .refine(isValidUserId, 'not a valid user id')
    .optional(),
  type: z.enum(MEMORY_TYPES).optional(),
  importance: z.number().min(0).max(1).optional(),
  status: z.enum(MEMORY_STATUSES).optional(),
  created: timestamp.optional(),
  updated: timestamp.optional(),
  expires: timestamp.nullable().optional(),
  key: z.string().min(1).max(200).nullable().optional(),
  supersedes: z
    .union([idString, z.array(idString).min(1)])
    .nullable()
    .optional(),
  superseded_by: idString.nullable().optional(),
  consolidated_into: idString.nullable().optional(),
  source: z.string().max(500).nullable().optional(),
  sources: z.array(idString).nullable().optional(),
  tags: z
    .union([z.array(z.union([z.string(), z.number()])), z.string()])
    .transform((v) => (Array.isArray(v) ? v.map(String) : v.split(',')).map((t) => t.trim()).filter(Boolean))
    .pipe(
      z
        .array(
          z
            .string()
            .max(100)
            .regex(/^[^\n\r"\\]+$/, 'tags may not contain quotes, backslashes or newlines'),
        )
        .max(MAX_TAGS, `at most ${MAX_TAGS} tags (the index holds that many)`),
    )
    .nullable()
    .optional(),
  confidence: z.number().min(0).max(1).nullable().optional(),
});

/** Where a memory file sits tells its defaults: `<user>/<type>/...`. */
export interface MetaDefaults {
  id: string;
  user: string;
  type: MemoryType;
  /** Used for created/updated when the front matter has none. */
  time: string;
}

/** Line (1-based, in the file) of a top-level key inside the front matter, or of the opening fence. */
export function lineOfKey(frontMatterSource: string, key: string): number {
  const lines = frontMatterSource.split('\n');
  const idx = lines.findIndex((l) => l.startsWith(`${key}:`) || l.startsWith(`"${key}":`) || l.startsWith(`'${key}':`));
  return idx === -1 ? 1 : idx + 2; // +1 for 1-based, +1 for the opening "---"
}

const DATE_KEYS = ['created', 'updated', 'expires'] as const;

/** The scalar as written on a top-level key's line (quotes and a trailing comment removed), if it is there. */
function writtenScalar(frontMatterSource: string, key: string): string | undefined {
  const line = frontMatterSource.split('\n')[lineOfKey(frontMatterSource, key) - 2];
  const m = line === undefined ? null : /^["']?[\w-]+["']?\s*:\s*(.*?)\s*(?:\s#.*)?$/.exec(line);
  if (!m || !m[1]) return undefined;
  return m[1].replace(/^(["'])(.*)\1$/, '$2');
}

/**
 * YAML rolls impossible dates over (2026-02-30 becomes March 2) and reads year 0000 as 1900, so every
 * date is checked as it was written and replaced by the instant it names.
 */
function strictDates(raw: Record<string, unknown>, path: string, frontMatterSource: string): Record<string, unknown> {
  const out = { ...raw };
  for (const key of DATE_KEYS) {
    const value = raw[key];
    if (value === undefined || value === null || !(value instanceof Date || typeof value === 'string')) continue;
    const written = typeof value === 'string' ? value : writtenScalar(frontMatterSource, key);
    if (written === undefined) continue; // not on one line of its own: YAML's reading stands
    const parsed = parseStrictDate(written);
    if ('error' in parsed) throw new InvalidMemoryError(path, lineOfKey(frontMatterSource, key), `front matter "${key}": ${parsed.error}`);
    out[key] = parsed.date;
  }
  return out;
}

export function normaliseFrontMatter(rawAsParsed: Record<string, unknown>, defaults: MetaDefaults, path: string, frontMatterSource: string): MemoryMeta {
  const raw = strictDates(rawAsParsed, path, frontMatterSource);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0] ?? '');
    const value = key in raw ? ` (got ${JSON.stringify(raw[key])?.slice(0, 60)})` : '';
    throw new InvalidMemoryError(path, lineOfKey(frontMatterSource, key), `front matter "${key}": ${issue.message}${value}`);
  }
  const fm = parsed.data;
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (!(KNOWN_KEYS as readonly string[]).includes(k)) extra[k] = v;
  }
  // Every id must be one a lookup accepts: a file name that cannot be one needs an explicit id.
  if (fm.id === undefined && !isValidMemoryId(defaults.id)) {
    throw new InvalidMemoryError(
      path,
      1,
      `the file name does not make a valid memory id ${JSON.stringify(defaults.id).slice(0, 80)}: rename the file or give it an id: in its front matter`,
    );
  }
  const created = fm.created ?? defaults.time;
  const meta: MemoryMeta = {
    id: fm.id ?? defaults.id,
    user: fm.user ?? defaults.user,
    type: fm.type ?? defaults.type ?? DEFAULT_TYPE,
    importance: fm.importance ?? DEFAULT_IMPORTANCE,
    status: fm.status ?? 'active',
    created,
    updated: fm.updated ?? created,
    tags: fm.tags ?? [],
    extra,
  };
  if (fm.expires) meta.expires = fm.expires;
  if (fm.key) meta.key = fm.key;
  if (fm.supersedes) meta.supersedes = fm.supersedes;
  if (fm.superseded_by) meta.superseded_by = fm.superseded_by;
  if (fm.consolidated_into) meta.consolidated_into = fm.consolidated_into;
  if (fm.source) meta.source = fm.source;
  if (fm.sources) meta.sources = fm.sources;
  if (fm.confidence !== undefined && fm.confidence !== null) meta.confidence = fm.confidence;
  return meta;
}
