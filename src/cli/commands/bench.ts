// `mem bench locomo`: retrieval quality and latency on LoCoMo-format data, with ablations.
import { resolve } from 'node:path';

import { ABLATIONS, LAYOUTS, runLocomo, type Layout, type LocomoReport } from '../../bench/locomo/run.js';
import type { Metrics } from '../../bench/locomo/metrics.js';
import { UsageError } from '../../errors.js';
import { configFrom } from '../context.js';
import type { GlobalOptions, Io } from '../io.js';
import { parseList, parsePositiveInt } from './parse-options.js';

export interface BenchOptions extends GlobalOptions {
  data: string;
  k: string;
  workDir?: string;
  ablations?: string;
  layouts?: string;
  pooled?: boolean;
  incremental?: boolean;
  window?: string;
}

const pct = (n: number) => n.toFixed(3);

const CATEGORIES: Record<string, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' };

function rows(ablations: Record<string, Metrics>): string[] {
  return Object.entries(ablations).map(
    ([name, m]) =>
      `| ${name} | ${m.questions} | ${pct(m.turn['recall@5'])} | ${pct(m.turn['recall@10'])} | ${pct(m.turn['all@10'])} | ${pct(m.session['recall@5'])} | ${pct(m.session['recall@10'])} | ${pct(m.mrr)} | ${m.latency_ms.p50.toFixed(0)} / ${m.latency_ms.p95.toFixed(0)} |`,
  );
}

function categories(ablations: Record<string, Metrics>): string[] {
  return Object.entries(ablations).map(
    ([name, m]) =>
      `| ${name} | ${Object.entries(m.by_category)
        .map(([c, s]) => `${CATEGORIES[c] ?? c} ${pct(s.turn['recall@10'])} / ${pct(s.session['recall@5'])}`)
        .join(' · ')} |`,
  );
}

function table(report: LocomoReport): string {
  const head = `LoCoMo: ${report.conversations} conversations, ${report.index.chunks} rows (${report.index.units} units, ${report.index.windows} windows; ${report.index.texts} distinct texts) indexed in ${report.index.seconds.toFixed(1)} s (${report.index.embedded} embedded), k=${report.k}`;
  const out = [head];
  for (const [run, ablations] of Object.entries(report.runs)) {
    out.push(
      '',
      `${run} (totals: categories 1-4)`,
      '',
      '| ablation | questions | turn R@5 | turn R@10 | turn all@10 | session R@5 | session R@10 | MRR | latency ms p50 / p95 |',
      '|---|---|---|---|---|---|---|---|---|',
      ...rows(ablations),
    );
    out.push('', '| ablation | by category: turn R@10 / session R@5 |', '|---|---|', ...categories(ablations));
  }
  return out.join('\n');
}

export async function benchLocomoCommand(opts: BenchOptions, io: Io): Promise<void> {
  const ablations = opts.ablations ? parseList(opts.ablations) : undefined;
  for (const a of ablations ?? []) if (!ABLATIONS[a]) throw new UsageError(`unknown ablation ${a}; choose from ${Object.keys(ABLATIONS).join(', ')}`);
  const layouts = opts.layouts ? parseList(opts.layouts) : undefined;
  for (const l of layouts ?? []) if (!LAYOUTS.includes(l as Layout)) throw new UsageError(`unknown layout ${l}; choose from ${LAYOUTS.join(', ')}`);
  const window = opts.window === undefined ? undefined : opts.window === 'chunks' ? 'chunks' : Number(opts.window);
  if (typeof window === 'number' && !(Number.isInteger(window) && window >= 0 && window <= 20))
    throw new UsageError('--window must be a whole number from 0 to 20, or chunks');
  const config = configFrom(opts);
  const report = await runLocomo(window === undefined ? config : { ...config, chunkWindow: window }, {
    data: resolve(opts.data),
    k: parsePositiveInt(opts.k, '--k', 200),
    ...(opts.workDir ? { workDir: resolve(opts.workDir) } : {}),
    ...(ablations ? { ablations } : {}),
    ...(layouts ? { layouts: layouts as Layout[] } : {}),
    pooled: opts.pooled === true,
    incremental: opts.incremental === true,
    onProgress: (m) => io.note(m),
  });
  io.result(report, () => table(report));
}
