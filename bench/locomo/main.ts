// The LoCoMo benchmark's command line (`npm run bench:locomo -- [options]`): retrieval quality and latency on
// LoCoMo-format data, with ablations. A dev tool, not a `mem` command: the package does not ship it.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { errorMessage, loadConfig, UsageError } from '../../dist/internal.js';
import type { Metrics } from './metrics.js';
import { ABLATIONS, LAYOUTS, runLocomo, type AblationMetrics, type Layout, type LocomoReport } from './run.js';

const USAGE = `usage: npm run bench:locomo -- [--data FILE] [--k N] [--work-dir DIR] [--ablations a,b] [--layouts ingest,turns]
       [--pooled] [--incremental] [--window N|chunks] [--searched-before] [--budgets 500,1200,2000] [--json]
ablations: ${Object.keys(ABLATIONS).join(', ')}`;

const list = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function positiveInt(value: string, flag: string, max: number): number {
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`${flag} must be a whole number from 1 to ${max}`);
  return n;
}

const pct = (n: number) => n.toFixed(3);

const CATEGORIES: Record<string, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' };

function rows(ablations: Record<string, Metrics>): string[] {
  return Object.entries(ablations).map(
    ([name, m]) =>
      `| ${name} | ${m.questions} | ${pct(m.turn['recall@5'])} | ${pct(m.turn['recall@10'])} | ${pct(m.turn['all@10'])} | ${pct(m.session['recall@5'])} | ${pct(m.session['recall@10'])} | ${pct(m.mrr)} | ${m.latency_ms.p50.toFixed(0)} / ${m.latency_ms.p95.toFixed(0)} | ${m.with_embedding_ms ? `${m.with_embedding_ms.p50.toFixed(0)} / ${m.with_embedding_ms.p95.toFixed(0)}` : '–'} |`,
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

function budgets(ablations: Record<string, AblationMetrics>): string[] {
  return Object.entries(ablations).map(
    ([name, m]) =>
      `| ${name} | ${Object.values(m.budget)
        .map((f) => `${pct(f.turn)} / ${pct(f.session)} / ${f.tokens.toFixed(0)}`)
        .join(' | ')} |`,
  );
}

function mcpRows(ablations: Record<string, AblationMetrics>): string[] {
  return Object.entries(ablations).map(([name, m]) => `| ${name} | ${pct(m.mcp.turns)} / ${pct(m.mcp.sessions)} / ${m.mcp.tokens.toFixed(0)} |`);
}

function table(report: LocomoReport): string {
  const measured = Object.keys(Object.values(report.ablations)[0]?.budget ?? {});
  const head = `LoCoMo: ${report.conversations} conversations, ${report.index.chunks} rows (${report.index.units} units, ${report.index.windows} windows; ${report.index.texts} distinct texts) indexed in ${report.index.seconds.toFixed(1)} s (${report.index.embedded} embedded), k=${report.k}`;
  const out = [head, report.state];
  for (const [run, ablations] of Object.entries(report.runs)) {
    out.push(
      '',
      `${run} (totals: categories 1-4)`,
      '',
      '| ablation | questions | turn R@5 | turn R@10 | turn all@10 | session R@5 | session R@10 | MRR | latency ms p50 / p95 | with the query embedding |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...rows(ablations),
    );
    out.push('', '| ablation | by category: turn R@10 / session R@5 |', '|---|---|', ...categories(ablations));
    out.push(
      '',
      `inside the context block (\`mem search --format context --budget N\`): evidence turns / sessions / tokens used`,
      '',
      `| ablation | ${measured.join(' | ')} |`,
      `|---|${measured.map(() => '---').join('|')}|`,
      ...budgets(ablations),
    );
    out.push(
      '',
      'inside the MCP `memory_search` answer (default k 8): evidence turns / sessions / tokens',
      '',
      '| ablation | mcp |',
      '|---|---|',
      ...mcpRows(ablations),
    );
  }
  return out.join('\n');
}

async function main(argv: string[]): Promise<void> {
  const { values: opts } = parseArgs({
    args: argv,
    options: {
      data: { type: 'string' },
      k: { type: 'string', default: '10' },
      'work-dir': { type: 'string' },
      ablations: { type: 'string' },
      layouts: { type: 'string' },
      pooled: { type: 'boolean', default: false },
      incremental: { type: 'boolean', default: false },
      'searched-before': { type: 'boolean', default: false },
      window: { type: 'string' },
      budgets: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (!opts.data) throw new UsageError('--data FILE is required (a LoCoMo JSON file)');
  const ablations = opts.ablations ? list(opts.ablations) : undefined;
  for (const a of ablations ?? []) if (!ABLATIONS[a]) throw new UsageError(`unknown ablation ${a}; choose from ${Object.keys(ABLATIONS).join(', ')}`);
  const layouts = opts.layouts ? list(opts.layouts) : undefined;
  for (const l of layouts ?? []) if (!LAYOUTS.includes(l as Layout)) throw new UsageError(`unknown layout ${l}; choose from ${LAYOUTS.join(', ')}`);
  const window = opts.window === undefined ? undefined : opts.window === 'chunks' ? 'chunks' : Number(opts.window);
  if (typeof window === 'number' && !(Number.isInteger(window) && window >= 0 && window <= 20))
    throw new UsageError('--window must be a whole number from 0 to 20, or chunks');
  const config = loadConfig(process.env);
  const report = await runLocomo(window === undefined ? config : { ...config, chunkWindow: window }, {
    data: resolve(opts.data),
    k: positiveInt(opts.k!, '--k', 200),
    ...(opts['work-dir'] ? { workDir: resolve(opts['work-dir']) } : {}),
    ...(ablations ? { ablations } : {}),
    ...(layouts ? { layouts: layouts as Layout[] } : {}),
    pooled: opts.pooled === true,
    incremental: opts.incremental === true,
    searchedBefore: opts['searched-before'] === true,
    ...(opts.budgets ? { budgets: list(opts.budgets).map((b) => positiveInt(b, '--budgets', 100_000)) } : {}),
    onProgress: (m) => process.stderr.write(`${m}\n`),
  });
  process.stdout.write(`${opts.json ? JSON.stringify(report, null, 2) : table(report)}\n`);
}

// Exit codes as `mem`'s: 0 ok, 1 failure, 2 usage (a bad flag included).
try {
  await main(process.argv.slice(2));
  process.exitCode = 0;
} catch (err) {
  const usage = err instanceof UsageError || (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'));
  process.stderr.write(`${errorMessage(err)}\n${usage ? `${USAGE}\n` : ''}`);
  process.exitCode = usage ? 2 : 1;
}
// Exit once stdout is flushed, so a lingering handle (a server client, the vector cache) never keeps the run alive.
process.stdout.write('', () => process.exit());
