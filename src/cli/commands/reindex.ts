// `mem reindex`: bring the index in line with the files (or rebuild it from them).
import { ReportedFailure } from '../../errors.js';
import { withMemory } from '../context.js';
import { reclaimingHeap } from '../heap-reclaim.js';
import type { GlobalOptions, Io } from '../io.js';

export interface ReindexOptions extends GlobalOptions {
  rebuild?: boolean;
}

export async function reindexCommand(opts: ReindexOptions, io: Io): Promise<void> {
  // Collected as it grows: a full index of 50,000 files otherwise lets its heap grow far past what it holds.
  const progress = reclaimingHeap(await io.progress());
  // A reindex that is not a rebuild may load the index's client in a worker once it knows it will write (an edit).
  const report = await withMemory(opts, io, (memory) => memory.reindex({ rebuild: Boolean(opts.rebuild), progress }), {
    prepareIndex: !opts.rebuild,
  }).finally(() => progress.end());
  io.result(report, () => {
    const head = `${report.files} files, ${report.chunks} chunks: embedded ${report.embedded}, upserted ${report.upserted}, deleted ${report.deleted}, skipped ${report.skipped} unchanged`;
    const errs = report.errors.map((e) => `error: ${e.path}:${e.line}: ${e.message}`);
    const replaced = report.indexReplaced
      ? ['note: the index had been created anew since the last sync (its data removed?): every file was indexed again']
      : [];
    return [head, ...replaced, ...errs].join('\n');
  });
  // Problems in the files make the run a failure (exit 1), after the report is shown: a file that could
  // not be indexed, or one indexed with a lifecycle link that was ignored.
  if (report.errors.length > 0) throw new ReportedFailure(`${report.errors.length} problem(s) in the files named above; the other files are indexed`);
}
