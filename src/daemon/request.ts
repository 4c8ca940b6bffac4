// What may arrive on the daemon's socket, checked before anything acts on it: a request of the known
// shape, and for a search only the fields `mem search` sends, each of its type (the use case then
// validates their values, e.g. the user id); for an index call, its method's arguments, each of its type (the
// index's filter builder then validates and escapes their values). Kept apart from protocol.ts so the client never loads zod.
import { z } from 'zod';

import { MEMORY_STATUSES, MEMORY_TYPES } from '../memory/model.js';
import type { SearchInput } from '../services/search.js';
import { INDEX_METHODS, type DaemonRequest, type IndexCall } from '../adapters/daemon/protocol.js';

/** A request line longer than this is not one `mem search` sends. */
export const MAX_REQUEST_BYTES = 64 * 1024;
/** An index call carries rows with their vectors: a client sends at most a few hundred (adapters/daemon/daemon-index.ts). */
export const MAX_INDEX_REQUEST_BYTES = 8 * 1024 * 1024;

const searchInput = z.strictObject({
  query: z.string(),
  user: z.string().optional(),
  allUsers: z.boolean().optional(),
  types: z.array(z.enum(MEMORY_TYPES)).optional(),
  tags: z.array(z.string()).optional(),
  k: z.number().optional(),
  mode: z.enum(['hybrid', 'dense', 'bm25']).optional(),
  fusion: z.enum(['rrf', 'weighted']).optional(),
  rescore: z.boolean().optional(),
  unit: z.enum(['memory', 'chunk']).optional(),
  track: z.boolean().optional(),
  history: z.boolean().optional(),
});

// The block a prompt hook hands its agent, rendered by the daemon: the hook then loads neither the block's layout
// nor the secret scanner (a third of its modules), which the daemon keeps loaded.
const contextWanted = z.strictObject({
  tokens: z.number().int().positive(),
  about: z.string().optional(),
  attributes: z.record(z.string(), z.string()).optional(),
});

/** A search request's input: the search, and the context block to render from its results, when one is wanted. */
export interface DaemonSearch {
  search: SearchInput;
  context?: z.infer<typeof contextWanted>;
}

const request = z.object({
  version: z.number(),
  configKey: z.string(),
  op: z.enum(['search', 'index', 'ping', 'stop', 'release']),
  root: z.string().optional(),
  input: z.unknown().optional(),
});

/** The request on one line, or why it is not one. */
export function parseRequest(line: string): DaemonRequest | { invalid: string } {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return { invalid: 'malformed daemon request: not JSON' };
  }
  const parsed = request.safeParse(json);
  if (!parsed.success) return { invalid: `malformed daemon request: ${parsed.error.issues[0]?.message ?? 'unexpected shape'}` };
  return parsed.data;
}

/** The search input of a request (and the context block it asks for, if any), or why it is not one. */
export function parseSearchInput(input: unknown): DaemonSearch | { invalid: string } {
  const parsed = searchInput.extend({ context: contextWanted.optional() }).safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { invalid: `malformed search request: ${issue ? `${issue.path.join('.') || 'input'}: ${issue.message}` : 'unexpected shape'}` };
  }
  const { context, ...search } = parsed.data;
  // A block is for one user: the one whose memories the search is scoped to.
  if (context && search.user === undefined) return { invalid: "malformed search request: context: a block needs the search's user" };
  return { search: search as SearchInput, ...(context ? { context } : {}) };
}

const names = z.array(z.string());
const scope = z.strictObject({
  users: z.union([names, z.literal('all')]),
  statuses: z.array(z.enum(MEMORY_STATUSES)).optional(),
  types: z.array(z.enum(MEMORY_TYPES)).optional(),
  notExpiredAt: z.number().optional(),
  paths: names.optional(),
  memoryIds: names.optional(),
  tags: names.optional(),
});
const row = z.strictObject({
  chunkId: z.string(),
  kind: z.enum(['unit', 'window']),
  textHash: z.string(),
  memoryId: z.string(),
  user: z.string(),
  type: z.enum(MEMORY_TYPES),
  status: z.enum(MEMORY_STATUSES),
  importance: z.number(),
  created: z.number(),
  updated: z.number(),
  expires: z.number(),
  path: z.string(),
  heading: z.string(),
  lineStart: z.number(),
  lineEnd: z.number(),
  tags: names,
  content: z.string(),
  /** base64 of float32s (protocol.ts, encodeVector). */
  vector: z.string(),
});
const kind = z.enum(['unit', 'window']).optional();
const searchRequest = z.union([
  z.strictObject({ mode: z.literal('dense'), scope, queryVector: z.string(), limit: z.number(), kind }),
  z.strictObject({ mode: z.literal('bm25'), scope, queryText: z.string(), limit: z.number(), kind }),
]);
const span = z.strictObject({ path: z.string(), lineStart: z.number(), lineEnd: z.number() });
const ARGS: Record<IndexCall['method'], z.ZodType<unknown[]>> = {
  open: z.tuple([z.strictObject({ name: z.string(), dimension: z.number().int().positive() })]),
  upsert: z.tuple([z.array(row)]),
  insert: z.tuple([z.array(row)]),
  deleteChunks: z.tuple([names]),
  deleteStale: z.tuple([names, names]),
  delete: z.tuple([scope]),
  flush: z.tuple([]),
  search: z.tuple([searchRequest]),
  unitsWithin: z.tuple([scope, z.array(span), z.number().int().positive()]),
  count: z.tuple([scope]),
};
const indexCall = z.strictObject({ location: z.string(), method: z.enum(INDEX_METHODS), args: z.array(z.unknown()) });

/** The index call of a request (its arguments checked against its method's), or why it is not one. */
export function parseIndexCall(input: unknown): IndexCall | { invalid: string } {
  const call = indexCall.safeParse(input);
  if (!call.success) return { invalid: `malformed index request: ${call.error.issues[0]?.message ?? 'unexpected shape'}` };
  const args = ARGS[call.data.method].safeParse(call.data.args);
  if (!args.success) {
    const issue = args.error.issues[0];
    return { invalid: `malformed index request: ${call.data.method} ${issue ? `${issue.path.join('.') || 'args'}: ${issue.message}` : 'arguments'}` };
  }
  return { ...call.data, args: args.data };
}
