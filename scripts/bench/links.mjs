// Cost of resolving lifecycle links (supersedes/sources) over a whole manifest:
// node scripts/bench/links.mjs [--entries 50000] [--runs 7] [--pass full|sync] [--links busy|none]. Needs `npm run build`.
// --pass full: resolveLinks, every path's status (doctor); sync: linkChanges on the manifest a previous sync settled,
// what every sync (watch syncs too) runs. --links none: no memory links (the 50,000-file bench root).
import { parseArgs } from 'node:util';

import { linkChanges, resolveLinks, withStatus } from 'memdir/bench';

const { values } = parseArgs({
  options: {
    entries: { type: 'string', default: '50000' },
    runs: { type: 'string', default: '7' },
    pass: { type: 'string', default: 'full' },
    links: { type: 'string', default: 'busy' },
  },
});
const n = Number(values.entries);
const runs = Number(values.runs);

// 100 users; every 10th memory corrects the one before it (chains of two), every 50th is a summary of
// the 3 before it, every 1000th starts a 2-cycle, every 500th names a missing id: a busy, messy root.
const entries = new Map();
for (let i = 0; i < n; i++) {
  const user = `u${i % 100}`;
  const id = `m${i}`;
  const e = { size: 1, mtimeMs: 1, sha: 'x', memoryId: id, user, type: 'semantic', status: 'active', chunkCount: 1 };
  entries.set(`${user}/semantic/${id}.md`, e);
  if (values.links === 'none') continue;
  if (i % 10 === 9 && i >= 100) e.supersedes = `m${i - 100}`;
  if (i % 50 === 49 && i >= 300) e.sources = [`m${i - 100}`, `m${i - 200}`, `m${i - 300}`];
  if (i % 1000 === 0 && i + 100 < n) e.supersedes = `m${i + 100}`;
  if (i % 1000 === 100) e.supersedes = `m${i - 100}`;
  if (i % 500 === 7) e.supersedes = 'missing-id';
}
// A sync runs on the manifest the last sync left: each entry with the status its links gave.
const full = resolveLinks(entries);
if (values.pass === 'sync') for (const [path, e] of entries) entries.set(path, withStatus(e, full.statuses.get(path)));
const pass = values.pass === 'sync' ? linkChanges : resolveLinks;

// Wall time moves with the machine's load; CPU time (user + system) of this process much less.
const times = [];
const cpu = [];
let result;
for (let r = 0; r < runs; r++) {
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  result = pass(entries);
  const c = process.cpuUsage(c0);
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  cpu.push((c.user + c.system) / 1000);
}
times.sort((a, b) => a - b);
cpu.sort((a, b) => a - b);
const hidden = [...full.statuses.values()].filter((s) => s !== 'active').length;
console.log(
  JSON.stringify({
    entries: n,
    runs,
    pass: values.pass,
    links: values.links,
    medianMs: Number(times[Math.floor(runs / 2)].toFixed(1)),
    minMs: Number(times[0].toFixed(1)),
    maxMs: Number(times[runs - 1].toFixed(1)),
    medianCpuMs: Number(cpu[Math.floor(runs / 2)].toFixed(1)),
    hidden,
    problems: result.problems.length,
    rewritten: values.pass === 'sync' ? result.restatus.size : undefined,
  }),
);
