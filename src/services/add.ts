// Use case: write a new memory file atomically, index it, commit it.
import { UsageError } from '../errors.js';
import { assertUserId, newMemoryId } from '../memory/ids.js';
import { MEMORY_TYPES, type MemoryMeta, type MemoryType } from '../memory/model.js';
import { assertNoSecrets } from '../memory/secrets.js';
import { serializeMemory } from '../memory/serialize.js';
import { commitMessage, type MemoryDeps } from './deps.js';
import { syncLocked } from './sync.js';

export interface AddInput {
  text: string;
  user: string;
  type?: MemoryType;
  importance?: number;
  tags?: string[];
  key?: string;
  source?: string;
  /** ISO time after which the memory is no longer eligible. */
  expires?: string;
  /** Store the text even if it looks like it contains a secret (API key, private key, password). */
  allowSecrets?: boolean;
}

export interface AddResult {
  action: 'ADD';
  id: string;
  path: string;
  user: string;
  type: MemoryType;
}

export function validateAddInput(input: AddInput): void {
  assertUserId(input.user);
  if (!input.text || !input.text.trim()) throw new UsageError('the memory text is empty');
  if (!input.allowSecrets) assertNoSecrets(input.text);
  if (input.type !== undefined && !MEMORY_TYPES.includes(input.type)) {
    throw new UsageError(`type must be one of ${MEMORY_TYPES.join(', ')}`);
  }
  if (input.importance !== undefined && !(input.importance >= 0 && input.importance <= 1)) {
    throw new UsageError('importance must be a number from 0 to 1');
  }
  for (const tag of input.tags ?? []) {
    if (!tag || tag.length > 100 || /[\n\r"\\]/.test(tag)) throw new UsageError(`invalid tag ${JSON.stringify(tag)}`);
  }
  if (input.expires !== undefined && Number.isNaN(Date.parse(input.expires))) {
    throw new UsageError(`expires is not a date: ${JSON.stringify(input.expires)}`);
  }
}

export async function addMemory(deps: MemoryDeps, input: AddInput): Promise<AddResult> {
  validateAddInput(input);
  const now = deps.now();
  const type = input.type ?? 'semantic';
  const id = newMemoryId(input.text, now);
  const meta: MemoryMeta = {
    id,
    user: input.user,
    type,
    importance: input.importance ?? 0.5,
    status: 'active',
    created: now.toISOString(),
    updated: now.toISOString(),
    tags: input.tags ?? [],
    source: input.source ?? 'user',
    extra: {},
  };
  if (input.expires) meta.expires = new Date(input.expires).toISOString();
  if (input.key) meta.key = input.key;
  const path = `${input.user}/${type}/${id}.md`;
  return deps.lock.run(async () => {
    await deps.files.write(path, serializeMemory(meta, input.text.trim()));
    const report = await syncLocked(deps, { only: [path] });
    const problem = report.errors.find((e) => e.path === path);
    if (problem) throw new UsageError(`${path}:${problem.line}: ${problem.message}`);
    await deps.audit.commit([path], commitMessage('ADD', { id, user: input.user, type }));
    return { action: 'ADD', id, path, user: input.user, type };
  });
}
