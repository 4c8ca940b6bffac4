// `mem reindex`: bring the index in line with the files (or rebuild it from them).
import { ReportedFailure } from '../../errors.js';
import { withMemory } from '../context.js';
import type { GlobalOptions, Io } from '../io.js';

export interface ReindexOptions extends GlobalOptions {
  rebuild?: boolean;
}

export async function reindexCommand(opts: ReindexOptions, io: Io): Promise<void> {
  const progress = await io.progress();
  const report = await withMemory(opts, io, (memory) => memory.reindex({ rebuild: Boolean(opts.rebuild), progress }));
  io.result(report, () => {
    const head = `${report.files} files, ${report.chunks} chunks: embedded ${report.embedded}, upserted ${report.upserted}, deleted ${report.deleted}, skipped ${report.skipped} unchanged`;
    const errs = report.errors.map((e) => `error: ${e.path}:${e.line}: ${e.message}`);
    return [head, ...errs].join('\n');
  });
  // Files that could not be indexed make the run a failure (exit 1), after the report is shown.
  if (report.errors.length > 0) throw new ReportedFailure(`${report.errors.length} file(s) could not be indexed`);
}
