// `mem forget`: remove memories from the files, the index and the vector cache.
import { UsageError } from '../../errors.js';
import { withMemory } from '../context.js';
import type { GlobalOptions, Io } from '../io.js';

export interface ForgetOptions extends GlobalOptions {
  user?: string;
}

export async function forgetCommand(ids: string[], opts: ForgetOptions, io: Io): Promise<void> {
  if (ids.length === 0 && !opts.user) throw new UsageError('give memory ids, or --user <u> to forget everything about a user');
  const result = await withMemory(opts, io, (memory) => memory.forget({ ids, ...(opts.user ? { user: opts.user } : {}) }));
  io.result(result, () => {
    const lines = result.removed.map((r) => `removed ${r.id} (${r.path})`);
    for (const id of result.missing) lines.push(`not found: ${id}`);
    return lines.length ? lines.join('\n') : 'nothing to forget';
  });
}
