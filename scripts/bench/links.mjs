// Cost of resolving lifecycle links (supersedes/sources) over a whole manifest, which every sync does
// (watch syncs too): node scripts/bench/links.mjs [--entries 50000] [--runs 7]. Needs `npm run build`.
import { parseArgs } from 'node:util';

import { resolveLinks } from 'memdir/bench';

const { values } = parseArgs({ options: { entries: { type: 'string', default: '50000' }, runs: { type: 'string', default: '7' } } });
const n = Number(values.entries);
const runs = Number(values.runs);

// 100 users; every 10th memory corrects the one before it (chains of two), every 50th is a summary of
// the 3 before it, every 1000th starts a 2-cycle, every 500th names a missing id: a busy, messy root.
const entries = new Map();
for (let i = 0; i < n; i++) {
  const user = `u${i % 100}`;
  const id = `m${i}`;
  const e = { size: 1, mtimeMs: 1, sha: 'x', memoryId: id, user, type: 'semantic', status: 'active', chunkCount: 1 };
  if (i % 10 === 9 && i >= 100) e.supersedes = `m${i - 100}`;
  if (i % 50 === 49 && i >= 300) e.sources = [`m${i - 100}`, `m${i - 200}`, `m${i - 300}`];
  if (i % 1000 === 0 && i + 100 < n) e.supersedes = `m${i + 100}`;
  if (i % 1000 === 100) e.supersedes = `m${i - 100}`;
  if (i % 500 === 7) e.supersedes = 'missing-id';
  entries.set(`${user}/semantic/${id}.md`, e);
}

// Wall time moves with the machine's load; CPU time (user + system) of this process much less.
const times = [];
const cpu = [];
let result;
for (let r = 0; r < runs; r++) {
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  result = resolveLinks(entries);
  const c = process.cpuUsage(c0);
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  cpu.push((c.user + c.system) / 1000);
}
times.sort((a, b) => a - b);
cpu.sort((a, b) => a - b);
const hidden = [...result.statuses.values()].filter((s) => s !== 'active').length;
console.log(
  JSON.stringify({
    entries: n,
    runs,
    medianMs: Number(times[Math.floor(runs / 2)].toFixed(1)),
    minMs: Number(times[0].toFixed(1)),
    maxMs: Number(times[runs - 1].toFixed(1)),
    medianCpuMs: Number(cpu[Math.floor(runs / 2)].toFixed(1)),
    hidden,
    problems: result.problems.length,
  }),
);
