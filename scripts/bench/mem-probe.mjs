// Memory probe for the peak-RSS diagnosis (issue 13): loaded with `node --import` into a `mem` process, it appends
// one JSON line a second to $MEMDIR_PROBE_OUT with process.memoryUsage(), V8's heap spaces and
// /proc/self/smaps_rollup's anonymous vs file-backed resident memory and the time spent in collections; with $MEMDIR_PROBE_SNAP_MIB, it writes one
// heap snapshot beside the log the first time the RSS passes that many MiB; with $MEMDIR_PROBE_MAPS=1, also the resident
// MiB of each file-backed mapping over 1 MiB, summed by file (/proc/self/smaps: which map holds the file-backed part).
//
// Usage: node scripts/bench/rss.mjs --files 10000 --node-args="--import ./scripts/bench/mem-probe.mjs"
//        (with MEMDIR_PROBE_OUT=/tmp/x.jsonl [MEMDIR_PROBE_SNAP_MIB=280] in the environment)
import { appendFileSync, readFileSync } from 'node:fs';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import v8 from 'node:v8';

const out = process.env.MEMDIR_PROBE_OUT ?? `/tmp/mem-probe-${process.pid}.jsonl`;
const snapAt = Number(process.env.MEMDIR_PROBE_SNAP_MIB ?? 0);
const maps = process.env.MEMDIR_PROBE_MAPS === '1';
const t0 = Date.now();
const MiB = (n) => Math.round((n / 1048576) * 10) / 10;
let snapped = false;
// Time spent in V8's collections so far (ms) and how many, major (full, forced ones included) and minor apart.
const gc = { majorMs: 0, major: 0, minorMs: 0, minor: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const major = e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR;
    gc[major ? 'majorMs' : 'minorMs'] += e.duration;
    gc[major ? 'major' : 'minor']++;
  }
}).observe({ entryTypes: ['gc'] });

/** Resident kB lines of smaps_rollup (Rss, Anonymous, Pss_File...) in MiB. */
function rollup() {
  try {
    const text = readFileSync('/proc/self/smaps_rollup', 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0) * 1024;
    return { rss: MiB(kb('Rss')), anon: MiB(kb('Anonymous')), file: MiB(kb('Rss') - kb('Anonymous') - kb('Shmem')) };
  } catch {
    return null;
  }
}

/** Resident MiB per mapped file (over 1 MiB), from /proc/self/smaps. */
function fileMaps() {
  const byFile = {};
  let file = null;
  try {
    for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
      const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
      if (head) file = head[1].startsWith('/') ? head[1] : null;
      else if (file && line.startsWith('Rss:')) byFile[file] = (byFile[file] ?? 0) + Number(/(\d+)/.exec(line)[1]) * 1024;
    }
  } catch {
    return null;
  }
  return Object.fromEntries(
    Object.entries(byFile)
      .filter(([, b]) => b >= 1048576)
      .map(([f, b]) => [f.replace(/^.*\/\.mem\//, '.mem/'), MiB(b)]),
  );
}

function sample() {
  const m = process.memoryUsage();
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name.replace('_space', ''), MiB(s.space_used_size)]));
  const r = rollup();
  const line = {
    t: Math.round((Date.now() - t0) / 100) / 10,
    rss: MiB(m.rss),
    heapTotal: MiB(m.heapTotal),
    heapUsed: MiB(m.heapUsed),
    external: MiB(m.external),
    arrayBuffers: MiB(m.arrayBuffers),
    smaps: r,
    spaces,
    // Committed size of the young generation (both semi-spaces): what V8 keeps for it, used or not.
    newSize: MiB(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0),
    ...(maps ? { maps: fileMaps() } : {}),
    gc: { majorMs: Math.round(gc.majorMs), major: gc.major, minorMs: Math.round(gc.minorMs), minor: gc.minor },
  };
  appendFileSync(out, `${JSON.stringify(line)}\n`);
  if (snapAt > 0 && !snapped && m.rss / 1048576 >= snapAt) {
    snapped = true;
    const file = v8.writeHeapSnapshot(out.replace(/\.jsonl$/, '') + `-${line.t}s.heapsnapshot`);
    appendFileSync(out, `${JSON.stringify({ t: line.t, snapshot: file })}\n`);
  }
}

setInterval(sample, 1000).unref();
