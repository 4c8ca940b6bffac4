// `mem bench locomo`: retrieval quality and latency on LoCoMo-format data, with ablations.
import { resolve } from 'node:path';

import { ABLATIONS, runLocomo, type LocomoReport } from '../../bench/locomo/run.js';
import { UsageError } from '../../errors.js';
import { configFrom } from '../context.js';
import type { GlobalOptions, Io } from '../io.js';
import { parseList, parsePositiveInt } from './parse-options.js';

export interface BenchOptions extends GlobalOptions {
  data: string;
  k: string;
  workDir?: string;
  ablations?: string;
}

const pct = (n: number) => n.toFixed(3);

function table(report: LocomoReport): string {
  const head = `LoCoMo: ${report.conversations} conversations, ${report.index.chunks} chunks indexed in ${report.index.seconds.toFixed(1)} s (${report.index.embedded} embedded), k=${report.k}`;
  const rows = Object.entries(report.ablations).map(([name, m]) =>
    `| ${name} | ${m.questions} | ${pct(m.turn['recall@5'])} | ${pct(m.turn['recall@10'])} | ${pct(m.session['recall@5'])} | ${pct(m.session['recall@10'])} | ${pct(m.mrr)} | ${m.latency_ms.p50.toFixed(0)} / ${m.latency_ms.p95.toFixed(0)} |`);
  return [head, '', '| ablation | questions | turn R@5 | turn R@10 | session R@5 | session R@10 | MRR | latency ms p50 / p95 |', '|---|---|---|---|---|---|---|---|', ...rows].join('\n');
}

export async function benchLocomoCommand(opts: BenchOptions, io: Io): Promise<void> {
  const ablations = opts.ablations ? parseList(opts.ablations) : undefined;
  for (const a of ablations ?? []) if (!ABLATIONS[a]) throw new UsageError(`unknown ablation ${a}; choose from ${Object.keys(ABLATIONS).join(', ')}`);
  const report = await runLocomo(configFrom(opts), {
    data: resolve(opts.data),
    k: parsePositiveInt(opts.k, '--k', 200),
    ...(opts.workDir ? { workDir: resolve(opts.workDir) } : {}),
    ...(ablations ? { ablations } : {}),
    onProgress: (m) => io.note(m),
  });
  io.result(report, () => table(report));
}
