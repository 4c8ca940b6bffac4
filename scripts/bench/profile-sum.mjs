// Where a full index's main-thread time goes, by category, from runs of scripts/bench/full-profile.sh (issue 13, docs/benchmarks.md 40):
// each category per run, and divided by the run's parse-and-chunk time (the same work per file at any size) to compare loads.
// usage: node scripts/bench/profile-sum.mjs OUTDIR TAG...
import fs from 'node:fs';

const [dir0, ...tags] = process.argv.slice(2);
const cat = (f) => {
  const u = f.url || '';
  if (f.functionName === '(garbage collector)') return 'gc';
  if (f.functionName === '(idle)') return 'idle';
  if (f.functionName === '(program)') return 'program';
  if (u.includes('json-manifest') || /progressOf/.test(f.functionName)) return 'manifest+progress';
  if (u.includes('lmdb')) return 'lmdb';
  if (u.includes('/memory/') || u.includes('micromark') || u.includes('mdast') || u.includes('js-yaml') || u.includes('gray-matter') || u.includes('stemmer'))
    return 'parse/chunk';
  return 'rest';
};
const res = {};
for (const tag of tags) {
  const dir = `${dir0}/prof-${tag}`;
  const f = fs.readdirSync(dir).find((x) => x.endsWith('.cpuprofile'));
  const p = JSON.parse(fs.readFileSync(`${dir}/${f}`));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const t = {};
  for (let i = 0; i < p.samples.length; i++) {
    const c = cat(byId.get(p.samples[i]).callFrame);
    t[c] = (t[c] || 0) + (p.timeDeltas[i + 1] || 0) / 1e6;
  }
  const out = fs.readFileSync(`${dir0}/${tag}.out`, 'utf8');
  const rows = JSON.parse(
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .pop(),
  ).upserted;
  let mc = 0,
    mcMs = 0;
  for (const l of out.split('\n')) {
    const m = /Mark-Compact.* ([\d.]+) \/ [\d.]+ ms/.exec(l);
    if (m) {
      mc++;
      mcMs += +m[1];
    }
  }
  const busy = Object.entries(t)
    .filter(([k]) => k !== 'idle')
    .reduce((s, [, v]) => s + v, 0);
  const err = fs.readFileSync(`${dir0}/${tag}.err`, 'utf8');
  const w = /wall ([\d.]+) s user ([\d.]+) sys ([\d.]+)/.exec(err);
  const rss = /MAXRSS (\d+)/.exec(err);
  res[tag] = { rows, wall: +w[1], cpu: +w[2] + +w[3], maxrssMiB: Math.round(rss[1] / 1024), busy, ...t, mc, mcMs: mcMs / 1000 };
}
const keys = ['rows', 'wall', 'cpu', 'maxrssMiB', 'busy', 'parse/chunk', 'gc', 'manifest+progress', 'lmdb', 'rest', 'program', 'idle', 'mc', 'mcMs'];
console.log('metric'.padEnd(18), ...tags.map((t) => t.padStart(12)));
for (const k of keys)
  console.log(k.padEnd(18), ...tags.map((t) => (typeof res[t][k] === 'number' ? res[t][k].toFixed(k === 'rows' || k === 'mc' ? 0 : 1) : '-').padStart(12)));
console.log('-- per 10k rows, divided by parse/chunk per 10k rows (load-normalised) --');
for (const k of ['busy', 'gc', 'mcMs', 'manifest+progress', 'lmdb', 'rest'])
  console.log(k.padEnd(18), ...tags.map((t) => (res[t][k] / res[t]['parse/chunk']).toFixed(3).padStart(12)));
