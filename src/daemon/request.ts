// What may arrive on the daemon's socket, checked before anything acts on it: a request of the known
// shape, and for a search only the fields `mem search` sends, each of its type (the use case then
// validates their values, e.g. the user id). Kept apart from protocol.ts so the client never loads zod.
import { z } from 'zod';

import { MEMORY_TYPES } from '../memory/model.js';
import type { SearchInput } from '../services/search.js';
import type { DaemonRequest } from './protocol.js';

/** A request line longer than this is not one `mem search` sends. */
export const MAX_REQUEST_BYTES = 64 * 1024;

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

const request = z.object({
  version: z.number(),
  configKey: z.string(),
  op: z.enum(['search', 'ping', 'stop', 'release']),
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

/** The search input of a request, or why it is not one. */
export function parseSearchInput(input: unknown): SearchInput | { invalid: string } {
  const parsed = searchInput.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { invalid: `malformed search request: ${issue ? `${issue.path.join('.') || 'input'}: ${issue.message}` : 'unexpected shape'}` };
  }
  return parsed.data as SearchInput;
}
