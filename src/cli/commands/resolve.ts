// `mem resolve`: settles the memory files a git merge, rebase or cherry-pick left unmerged, by memdir's rules, and
// says what to run to finish it. Opens no index: the next command (or a running `mem watch`) indexes the result.
import { ReportedFailure } from '../../errors.js';
import type { SettleReport } from '../../services/merge/settle.js';
import { configFrom } from '../context.js';
import type { GlobalOptions, Io } from '../io.js';

function describe(r: SettleReport): string {
  const lines = r.settled.map((f) => `  ${f.how.padEnd(11)} ${f.path}${f.kept ? ` (the other version kept as ${f.kept})` : ''}${f.note ? `: ${f.note}` : ''}`);
  for (const f of r.left) lines.push(`  left       ${f.path}: ${f.reason}`);
  if (lines.length === 0) lines.push('  no memory file is unmerged');
  if (r.left.length > 0) lines.push('resolve the files left as any git conflict (keep the right text, delete the marker lines, git add them)');
  else if (r.next) lines.push(`every memory file is settled and staged; finish with \`${r.next}\``);
  return [`memory files${r.operation ? ` in the ${r.operation} under way` : ''}:`, ...lines].join('\n');
}

export async function resolveCommand(opts: GlobalOptions, io: Io): Promise<void> {
  const { settleUnmergedMemory } = await import('../../open-memory.js');
  const report = await settleUnmergedMemory(configFrom(opts).root);
  io.result(report, () => describe(report));
  if (report.left.length > 0) throw new ReportedFailure(`${report.left.length} memory file(s) need you: not readable as memories`);
}
