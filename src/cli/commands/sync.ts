// `mem sync`: exchange the memory root's commits with its remote (commit what is left, fetch, merge, push), then index what came in.
import type { RemoteSyncResult } from '../../services/git-sync/remote-sync.js';
import { withMemory } from '../context.js';
import type { GlobalOptions, Io } from '../io.js';

function formatSync(r: RemoteSyncResult): string {
  if (r.place === 'project') return r.message ?? '';
  const lines: string[] = [];
  if (r.settled === 'rolled-back') lines.push('an earlier mem sync was killed midway: the repository was put back as it found it, then synced');
  if (r.settled === 'finished') lines.push('an earlier mem sync was killed after its push: its indexing was finished');
  if (r.committed.length > 0) lines.push(`committed ${r.committed.length} uncommitted file(s): ${r.committed.join(', ')}`);
  if (r.rewritten === 'remote')
    lines.push(`the history of ${r.remote} was rewritten (a purge elsewhere): this clone's commits were moved onto it, the old commits pruned here`);
  if (r.rewritten === 'local') lines.push(`this clone's purged history replaced the old one on ${r.remote}`);
  const inc = r.incoming;
  lines.push(
    `in: ${inc.commits} commit(s)${inc.forgets ? ` (${inc.forgets} forget(s))` : ''}; ${inc.added.length} file(s) added, ${inc.changed.length} changed, ${inc.deleted.length} deleted`,
  );
  lines.push(`out: ${r.outgoing.commits} commit(s) pushed to ${r.remote}/${r.branch}`);
  lines.push(
    `index: embedded ${r.index.embedded} new text(s), upserted ${r.index.upserted}, deleted ${r.index.deleted}` +
      (r.index.purged ? `; deleted text purged from index storage (${r.index.purged})` : ''),
  );
  return lines.join('\n');
}

export async function syncCommand(opts: GlobalOptions, io: Io): Promise<void> {
  // Steps on a terminal only: a script reading --json or a log gets the result alone.
  const onStep = !io.json && process.stderr.isTTY ? (step: string) => io.note(`mem sync: ${step}…`) : undefined;
  const result = await withMemory(opts, io, (memory) => memory.syncRemote(onStep ? { onStep } : {}));
  io.result(result, () => formatSync(result));
}
