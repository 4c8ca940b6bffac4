#!/bin/bash
# A memory's keyword (BM25) score and rank right after `mem add` and after `mem reindex --rebuild`, on a copy of the
# sample memories: Milvus Lite keeps BM25 statistics per segment, and an add's row sits in a segment of its own.
# For docs/review-newuser10.md and docs/benchmarks.md ("A new user's first hour").
# usage: scripts/bench/fresh-add-bm25.sh [WORKDIR]   (run from the repository; WORKDIR is replaced, default /tmp/fresh-add-bm25)
set -u
work=${1:-/tmp/fresh-add-bm25}
root=$work/root
export MEMDIR_SERVER_HOME=${MEMDIR_SERVER_HOME:-$work/servers}
mem="node $PWD/bin/mem.js --root $root"
rm -rf "$root" && mkdir -p "$root" && cp -r memories/alice memories/wei "$root/"
(cd "$root" && git init -q && git add -A && git -c user.email=bench@example.invalid -c user.name=bench commit -qm samples)
$mem reindex > /dev/null
echo "load: $(cat /proc/loadavg)"
rank() {
  $mem search "$1" --user alice -k 8 --json | node -e '
    let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
      const r = JSON.parse(s).results, i = r.findIndex((x) => x.content.includes(process.argv[1])), h = r[i];
      console.log(`rank ${i + 1} of ${r.length}, bm25 ${h?.scores.bm25?.toFixed(3)}, relevance ${h?.scores.relevance.toFixed(3)}; first: ${r[0].id}`);
    });' "$2"
}
cases=('Alice prefers window seats|seat preference|window seats|'
  'Alice is allergic to peanuts|peanut allergy|peanuts|'
  'Alice moved to Berlin|where does Alice live|Berlin|--key residence'
  "Alice's cello teacher is called Ingrid|who teaches Alice the cello|Ingrid|")
for c in "${cases[@]}"; do
  IFS='|' read -r text query needle extra <<< "$c"
  $mem add "$text" --user alice $extra > /dev/null
  echo "after add      \"$query\": $(rank "$query" "$needle")"
done
$mem reindex --rebuild > /dev/null
for c in "${cases[@]}"; do
  IFS='|' read -r text query needle extra <<< "$c"
  echo "after rebuild  \"$query\": $(rank "$query" "$needle")"
done
