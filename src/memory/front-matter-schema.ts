// The zod schema of front matter: the authority on what is valid and the wording of every error. Built on first use
// only (zod takes ~75 ms to load), when the hand-written check in front-matter-check.ts cannot accept a value.
import { createRequire } from 'node:module';

import type { z as Z } from 'zod';

import { isValidMemoryId, isValidUserId } from './ids.js';
import { MAX_TAGS, MEMORY_STATUSES, MEMORY_TYPES } from './model.js';

function build(z: typeof Z) {
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

  return z.object({
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
}

let schema: ReturnType<typeof build> | undefined;

/**
 * The schema, zod loaded synchronously on first use (parsing is synchronous). zod ships CommonJS beside its ES
 * modules: the two copies word their errors alike, and a process that parses only valid files loads neither.
 */
export function frontMatterSchema(): ReturnType<typeof build> {
  return (schema ??= build((createRequire(import.meta.url)('zod') as { z: typeof Z }).z));
}
