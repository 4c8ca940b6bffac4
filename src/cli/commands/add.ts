// `mem add`: write, index and commit one memory.
import type { MemoryType } from '../../memory/model.js';
import { validateAddInput, type AddInput } from '../../services/add.js';
import { withMemory } from '../context.js';
import type { GlobalOptions, Io } from '../io.js';
import { parseImportance, parseList, requireUser } from './parse-options.js';

export interface AddOptions extends GlobalOptions {
  user?: string;
  type?: string;
  importance?: string;
  tags?: string;
  key?: string;
  source?: string;
  expires?: string;
  ttl?: string;
  supersedes?: string;
  force?: boolean;
  allowSecrets?: boolean;
}

export async function addCommand(text: string, opts: AddOptions, io: Io): Promise<void> {
  const user = requireUser(opts.user);
  const input: AddInput = {
    text,
    user,
    ...(opts.type ? { type: opts.type as MemoryType } : {}),
    ...(opts.importance !== undefined ? { importance: parseImportance(opts.importance) } : {}),
    ...(opts.tags ? { tags: parseList(opts.tags) } : {}),
    ...(opts.key !== undefined ? { key: opts.key } : {}),
    ...(opts.source ? { source: opts.source } : {}),
    ...(opts.expires ? { expires: opts.expires } : {}),
    ...(opts.ttl ? { ttl: opts.ttl } : {}),
    ...(opts.supersedes ? { supersedes: opts.supersedes } : {}),
    ...(opts.force ? { force: true } : {}),
    ...(opts.allowSecrets ? { allowSecrets: true } : {}),
  };
  // Bad values are usage errors before any server is started for them.
  await validateAddInput(input, new Date());
  const result = await withMemory(opts, io, (memory) => memory.add(input));
  io.result(result, () => {
    const what = {
      ADD: `added ${result.id}`,
      UPDATE: `updated ${result.id}`,
      SUPERSEDE: `added ${result.id}, superseding ${result.supersedes}`,
      NOOP: `nothing written: already known as ${result.id}`,
    }[result.action];
    return `${result.action} ${what} -> ${result.path}\n  why (${result.decidedBy}): ${result.reason}`;
  });
}
