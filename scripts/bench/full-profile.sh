#!/bin/bash
# One full index of a kept root, put back where the bench's full index starts, with a CPU profile, --trace-gc and the
# memory probe, for docs/benchmarks.md 40 (issue 13). Summarise runs with scripts/bench/profile-sum.mjs.
# usage: scripts/bench/full-profile.sh ROOT OUTDIR TAG   (run from the repository; ROOT a copy, never a kept root)
set -u
root=$1; out=$2; tag=$3
export MEMDIR_SERVER_HOME=$root-servers
mkdir -p "$out/prof-$tag"
node bin/mem.js --root "$root" --json setup > /dev/null 2>&1
node scripts/bench/reset-copy.mjs "$root" 2> "$out/$tag.reset.log"
echo "load start: $(cat /proc/loadavg)" > "$out/$tag.info"
MEMDIR_PROBE_OUT="$out/$tag.probe.jsonl" nice -n 10 /usr/bin/time -f 'MAXRSS %M KiB wall %e s user %U sys %S' \
  node --trace-gc --cpu-prof --cpu-prof-interval 2000 --cpu-prof-dir "$out/prof-$tag" --import ./scripts/bench/mem-probe.mjs \
  bin/mem.js --root "$root" --json reindex > "$out/$tag.out" 2> "$out/$tag.err"
echo "rc $?" >> "$out/$tag.info"
echo "load end: $(cat /proc/loadavg)" >> "$out/$tag.info"
