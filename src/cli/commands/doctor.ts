// `mem doctor [--fix]`: where files, manifest and index disagree; exit 1 while any problem remains.
import { ReportedFailure } from '../../errors.js';
import type { DoctorProblem } from '../../services/doctor.js';
import { describeHookProblem, hookHealth } from '../../services/capture/hook-health.js';
import { configFrom, withMemory } from '../context.js';
import type { GlobalOptions, Io } from '../io.js';

export interface DoctorCliOptions extends GlobalOptions {
  fix?: boolean;
}

const line = (p: DoctorProblem) => `${p.kind}: ${p.path ? `${p.path}${p.line !== undefined ? `:${p.line}` : ''}: ` : ''}${p.detail}`;

export async function doctorCommand(opts: DoctorCliOptions, io: Io): Promise<void> {
  const report = await withMemory(opts, io, (memory) => memory.doctor({ fix: Boolean(opts.fix) }));
  const { openHookState } = await import('../../open-memory.js');
  // Agent hooks never fail the agent, so their failures surface here (warnings: the index is not at fault).
  const hooks = hookHealth(await (await openHookState(configFrom(opts))).entries(), new Date());
  // Only where agent hooks ran: a root no agent uses reports exactly what it did before.
  io.result(hooks.runs > 0 ? { ...report, hooks } : report, () => {
    const lines = [`${report.files} files, ${report.manifestEntries} manifest entries, ${report.indexRows} index rows`];
    for (const p of report.repaired) lines.push(`repaired ${line(p)}`);
    for (const p of report.problems) lines.push(`${p.fixable ? '' : '(needs you) '}${line(p)}`);
    if (report.ok) lines.push('files, manifest and index agree');
    for (const p of hooks.problems) lines.push(`agent hook: ${describeHookProblem(p)}`);
    if (hooks.problemCount > hooks.problems.length)
      lines.push(`agent hooks: ${hooks.problemCount - hooks.problems.length} more in the last 7 days (\`mem status --json\` lists the latest)`);
    return lines.join('\n');
  });
  if (report.ok) return;
  const fixable = report.problems.filter((p) => p.fixable).length;
  throw new ReportedFailure(
    opts.fix || fixable === 0
      ? `${report.problems.length} problem(s) remain; fix the files named above`
      : `${report.problems.length} problem(s); \`mem doctor --fix\` repairs ${fixable} of them`,
  );
}
