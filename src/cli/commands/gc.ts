// `mem gc`: mark expired memories in their files, remove them after the grace period; one commit.
import { withMemory } from '../context.js';
import type { GlobalOptions, Io } from '../io.js';

export interface GcOptions extends GlobalOptions {
  user?: string;
  dryRun?: boolean;
}

export async function gcCommand(opts: GcOptions, io: Io): Promise<void> {
  const result = await withMemory(opts, io, (memory) => memory.gc({ ...(opts.user ? { user: opts.user } : {}), ...(opts.dryRun ? { dryRun: true } : {}) }));
  io.result(result, () => {
    const verb = result.dryRun ? 'would mark' : 'marked';
    const lines = [
      ...result.expired.map((e) => `${verb} expired: ${e.id} (${e.path})`),
      ...result.removed.map((r) => `${result.dryRun ? 'would remove' : 'removed'}: ${r.id} (${r.path})`),
      ...result.kept.map(
        (k) =>
          `${result.dryRun ? 'would keep' : 'kept'}: ${k.id} (${k.path}): not committed to git, so not removed; ${result.dryRun ? 'gc commits it' : 'committed now'} (marked expired), a later gc removes it`,
      ),
      ...result.regenerated.map((g) => (g.to ? `regenerated summary ${g.from} as ${g.to}` : `dropped summary ${g.from}`)),
    ];
    if (result.purge && result.purge.index !== 'clean') lines.push(`deleted text purged from the index (${result.purge.index})`);
    if (result.purge?.cachedVectorsRemoved) lines.push(`${result.purge.cachedVectorsRemoved} unused cached vectors removed`);
    return lines.length ? lines.join('\n') : 'nothing expired';
  });
}
