#!/usr/bin/env bash
# Whole-process scale benchmark: how ctx grows with the size of the
# repository, measured on 1, 3 and 10 copies of the Go standard library
# ($(go env GOROOT)/src, about 9.1k indexed files and 130 MB a copy). The
# n-copy tree is a directory holding src1 … srcN, each a `cp -r` of
# GOROOT/src, built once and used by every binary and round. Identical
# files in two copies still make two files, chunk sets and posting lists;
# only their embeddings are computed once (the store keys vectors by text).
#
# For each size and each round, the binaries run one after the other,
# alternating which goes first (paired runs on a shared machine), each
# with a fresh CTX_CACHE_DIR, and measure:
#   - cold `ctx index`: wall time and peak RSS (/usr/bin/time -f '%e %M')
#   - no-change re-index: wall time
#   - index size on disk (every file ctx keeps for the root in the cache
#     dir: database, WAL, vector file, lock) and the indexed source bytes
#     (`source_bytes` from `ctx status --json`, else summed from the files
#     table with python3's sqlite3), and their ratio
#   - `ctx find` whole process: p50/p95 over the queries (one process each)
#   - MCP codebase_retrieval, server side (stats.server_ms), p50/p95 in the
#     quick and balanced modes, through scripts/bench-mcp -uncached: each
#     measured round starts a new server, warmed by a query outside the
#     set, so no measured call is answered from the query cache (which
#     lives in the server's memory and would answer every repeated query).
# It prints the median over rounds of each measure per binary and size,
# then the growth of cold index time and peak RSS over the 1-copy size.
#
#   scripts/bench-scale.sh                          # builds bin/ctx; 1, 3, 10 copies
#   COPIES="1 3" ROUNDS=1 scripts/bench-scale.sh
#   BASE_BIN=/tmp/ctx-main NEW_BIN=bin/ctx scripts/bench-scale.sh
#
# Environment:
#   COPIES      sizes to measure, in copies of GOROOT/src (default "1 3 10";
#               10 copies take about 1.3 GB for the tree and as much again
#               for one index, and an hour or more per binary and round)
#   ROUNDS      paired rounds per size (default 3)
#   NEW_BIN     the ctx binary to measure (default: go build -o bin/ctx)
#   BASE_BIN    a second binary to compare with (default: none)
#   SRC         the tree to copy (default $(go env GOROOT)/src)
#   QUERIES     one query per line (default scripts/goroot-queries.txt)
#   MCP_ROUNDS  measured bench-mcp rounds per mode in each round (default 1)
#   WORK        working directory for the trees and cache dirs (default: a
#               new temporary directory); removed on exit unless KEEP=1
#   KEEP=1      keep WORK (its trees are reused by a later run given WORK)
# Other CTX_* variables (CTX_EMBED_PROVIDER, …) pass through to ctx.
# Needs python3 and GNU time at /usr/bin/time. Results go to stdout, the
# raw measures to $WORK/results.tsv.
set -euo pipefail
cd "$(dirname "$0")/.."
COPIES=${COPIES:-1 3 10}
ROUNDS=${ROUNDS:-3}
QUERIES=${QUERIES:-scripts/goroot-queries.txt}
MCP_ROUNDS=${MCP_ROUNDS:-1}
GOSRC=${SRC:-$(go env GOROOT)/src}
if [ -z "${NEW_BIN:-}" ]; then
  go build -o bin/ctx ./cmd/ctx
  NEW_BIN=$PWD/bin/ctx
fi
NEW_BIN=$(realpath "$NEW_BIN")
BINS=(new)
declare -A BIN=([new]=$NEW_BIN)
if [ -n "${BASE_BIN:-}" ]; then
  BIN[base]=$(realpath "$BASE_BIN")
  BINS=(base new)
fi
if [ -z "${WORK:-}" ]; then
  WORK=$(mktemp -d)
fi
mkdir -p "$WORK"
WORK=$(realpath "$WORK")
if [ "${KEEP:-}" != 1 ]; then
  trap 'rm -rf "$WORK"' EXIT
fi
go build -o "$WORK/bench-mcp" ./scripts/bench-mcp
RESULTS=$WORK/results.tsv
: > "$RESULTS"

echo "ctx scale benchmark: copies of $GOSRC ($(nproc) cores), sizes: $COPIES, rounds: $ROUNDS"
for b in "${BINS[@]}"; do echo "  $b: ${BIN[$b]}"; done
echo "work dir: $WORK"

# make_tree N makes (once) and prints the directory of N copies of GOROOT/src.
make_tree() {
  local dir=$WORK/tree-$1
  if [ ! -e "$dir/.complete" ]; then
    rm -rf "$dir"
    mkdir -p "$dir"
    for i in $(seq "$1"); do cp -r "$GOSRC" "$dir/src$i"; done
    touch "$dir/.complete"
  fi
  echo "$dir"
}

# record SIZE BIN ROUND METRIC VALUE appends one measure to results.tsv.
record() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" >> "$RESULTS"; }

# measure SIZE BIN ROUND REPO: one binary's measures on one tree.
measure() {
  local size=$1 name=$2 round=$3 repo=$4 bin=${BIN[$2]}
  local cache=$WORK/cache-$size-$name-$round
  rm -rf "$cache"
  mkdir -p "$cache"
  export CTX_CACHE_DIR=$cache
  # The copies are not a git work tree and hold more files than ctx
  # indexes on its own outside one (CTX_NON_REPO_MAX_FILES).
  export CTX_NON_REPO_MAX_FILES=0
  local s kb
  /usr/bin/time -f '%e %M' -o "$cache/cold.time" "$bin" index --repo "$repo" --json > "$cache/cold.json"
  read -r s kb < "$cache/cold.time"
  record "$size" "$name" "$round" cold_s "$s"
  record "$size" "$name" "$round" cold_rss_mb "$((kb / 1024))"
  /usr/bin/time -f '%e %M' -o "$cache/warm.time" "$bin" index --repo "$repo" --json > /dev/null
  read -r s kb < "$cache/warm.time"
  record "$size" "$name" "$round" reindex_s "$s"

  "$bin" status --repo "$repo" --json > "$cache/status.json"
  python3 - "$cache/status.json" "$size" "$name" "$round" >> "$RESULTS" <<'PY'
import glob, json, os, sqlite3, sys
st = json.load(open(sys.argv[1]))
path = st["index_path"]
# Every file ctx keeps for the root: the database, its WAL and shm, the
# vector file, the lock (the cache dir is this run's alone).
disk = sum(os.path.getsize(p) for p in glob.glob(path + "*") if os.path.isfile(p))
src = st.get("source_bytes")
if src is None:  # a build before source_bytes: sum the files table
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    src = db.execute("select coalesce(sum(size), 0) from files").fetchone()[0]
tag = "\t".join(sys.argv[2:5])
print(f"{tag}\tindex_mb\t{disk / 2**20:.1f}")
print(f"{tag}\tsource_mb\t{src / 2**20:.1f}")
print(f"{tag}\tindex_ratio\t{disk / src:.2f}")
PY

  local q t0 t1
  : > "$cache/find.us"
  while IFS= read -r q; do
    [ -n "$q" ] || continue
    t0=$(date +%s%N)
    "$bin" find --repo "$repo" --json --limit 10 "$q" > /dev/null
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000)) >> "$cache/find.us"
  done < "$QUERIES"
  python3 - "$cache/find.us" "$size" "$name" "$round" >> "$RESULTS" <<'PY'
import sys
t = sorted(int(x) / 1000 for x in open(sys.argv[1]) if x.strip())
p = lambda q: t[min(len(t) - 1, int(round(q * (len(t) - 1))))]
tag = "\t".join(sys.argv[2:5])
print(f"{tag}\tfind_p50_ms\t{p(0.5):.1f}\n{tag}\tfind_p95_ms\t{p(0.95):.1f}")
PY

  local mode line
  for mode in quick balanced; do
    "$WORK/bench-mcp" -ctx "$bin" -repo "$repo" -queries "$QUERIES" -rounds "$MCP_ROUNDS" -mode "$mode" -uncached > "$cache/mcp-$mode.txt"
    line=$(grep '^server_ms:' "$cache/mcp-$mode.txt")
    record "$size" "$name" "$round" "${mode}_p50_ms" "$(awk '{print $3}' <<< "$line")"
    record "$size" "$name" "$round" "${mode}_p95_ms" "$(awk '{print $5}' <<< "$line")"
  done
  unset CTX_CACHE_DIR
  rm -rf "$cache"
}

for size in $COPIES; do
  echo "building the $size-copy tree…"
  repo=$(make_tree "$size")
  for round in $(seq "$ROUNDS"); do
    order=("${BINS[@]}")
    if [ $((round % 2)) = 0 ] && [ ${#BINS[@]} = 2 ]; then order=("${BINS[1]}" "${BINS[0]}"); fi
    for name in "${order[@]}"; do
      echo "size $size, round $round: $name"
      measure "$size" "$name" "$round" "$repo"
    done
  done
done

python3 - "$RESULTS" <<'PY'
import collections, statistics, sys
vals = collections.defaultdict(list)
sizes, bins = [], []
for line in open(sys.argv[1]):
    size, name, _, metric, v = line.rstrip("\n").split("\t")
    vals[(int(size), name, metric)].append(float(v))
    if int(size) not in sizes:
        sizes.append(int(size))
    if name not in bins:
        bins.append(name)
med = lambda s, b, m: statistics.median(vals[(s, b, m)]) if vals[(s, b, m)] else float("nan")
cols = [("cold_s", "cold s", "{:.1f}"), ("cold_rss_mb", "RSS MB", "{:.0f}"), ("reindex_s", "re-idx s", "{:.2f}"),
        ("index_mb", "index MB", "{:.0f}"), ("source_mb", "src MB", "{:.0f}"), ("index_ratio", "ratio", "{:.2f}"),
        ("find_p50_ms", "find p50", "{:.0f}"), ("find_p95_ms", "find p95", "{:.0f}"),
        ("quick_p50_ms", "quick p50", "{:.1f}"), ("quick_p95_ms", "quick p95", "{:.1f}"),
        ("balanced_p50_ms", "bal p50", "{:.1f}"), ("balanced_p95_ms", "bal p95", "{:.1f}")]
print()
print("medians over rounds (times in s or ms; find: whole process; quick/bal: MCP server_ms, uncached)")
head = ["copies", "binary"] + [c[1] for c in cols]
rows = [[str(s), b] + [f.format(med(s, b, m)) for m, _, f in cols] for s in sizes for b in bins]
w = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
for r in [head] + rows:
    print("  ".join(x.rjust(w[i]) for i, x in enumerate(r)))
if 1 in sizes and len(sizes) > 1:
    print()
    print("growth over 1 copy (cold index time, peak RSS)")
    for b in bins:
        parts = []
        for s in sizes:
            if s == 1:
                continue
            parts.append(f"{s} copies: time {med(s, b, 'cold_s') / med(1, b, 'cold_s'):.2f}x, RSS {med(s, b, 'cold_rss_mb') / med(1, b, 'cold_rss_mb'):.2f}x")
        print(f"  {b}: " + "; ".join(parts))
PY
