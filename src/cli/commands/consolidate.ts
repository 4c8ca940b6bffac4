// `mem consolidate`: fold a user's related memories into summaries that cite their sources.
import { UsageError } from '../../errors.js';
import type { MemoryType } from '../../memory/model.js';
import { withMemory } from '../context.js';
import type { GlobalOptions, Io } from '../io.js';
import { requireUser } from './parse-options.js';

export interface ConsolidateOptions extends GlobalOptions {
  user?: string;
  type?: string;
  threshold?: string;
  dryRun?: boolean;
}

export async function consolidateCommand(opts: ConsolidateOptions, io: Io): Promise<void> {
  const user = requireUser(opts.user);
  const threshold = opts.threshold === undefined ? undefined : Number(opts.threshold);
  if (threshold !== undefined && !(threshold > 0 && threshold <= 1)) throw new UsageError('--threshold must be a number above 0 and at most 1');
  const result = await withMemory(opts, io, (memory) =>
    memory.consolidate({
      user,
      ...(opts.type ? { type: opts.type as MemoryType } : {}),
      ...(threshold !== undefined ? { threshold } : {}),
      ...(opts.dryRun ? { dryRun: true } : {}),
    }),
  );
  io.result(result, () => {
    if (result.groups.length === 0) return 'no related memories to consolidate';
    return result.groups
      .map((g, i) => {
        const head = g.summary ? `summary ${g.summary.id} (${g.summary.path}, ${g.summary.summarisedBy})` : `group ${i + 1} (dry run)`;
        return [head, ...g.members.map((m) => `  <- ${m.id}`)].join('\n');
      })
      .join('\n');
  });
}
