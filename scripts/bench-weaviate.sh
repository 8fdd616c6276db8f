#!/usr/bin/env bash
# Whole-process benchmark of the weaviate backend on a copy of the Go
# standard library: cold index (the local pipeline plus the sync into
# Weaviate, objects/s), no-change re-index, an incremental update of 10
# files, and `ctx find` over scripts/goroot-queries.txt (server-side
# search_ms and whole-process wall time, p50/p95), with the local store's
# find times on the same copy for comparison.
#
#   scripts/bench-weaviate.sh                 # starts a 1-node server with scripts/weaviate.sh
#   NODES=3 REPLICAS=2 scripts/bench-weaviate.sh
#   CTX_WEAVIATE_URL=http://127.0.0.1:8080 scripts/bench-weaviate.sh   # an existing server
#
# Environment: REPO (default $(go env GOROOT)/src, copied first), CTX_BIN,
# NODES (1), REPLICAS (1), SETTLE (seconds to wait after writing before
# querying, default 120: right after an ingest the server compacts its
# segments in the background and queries run 3-5x slower), ROUNDS (2).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=${REPO:-$(go env GOROOT)/src}
NODES=${NODES:-1}
SETTLE=${SETTLE:-120}
ROUNDS=${ROUNDS:-2}
REPLICAS=${REPLICAS:-1}
if [ -z "${CTX_BIN:-}" ]; then
  go build -o bin/ctx ./cmd/ctx
  CTX_BIN=$PWD/bin/ctx
fi
WORK=$(mktemp -d)
cleanup() {
  if [ -n "${STARTED:-}" ]; then scripts/weaviate.sh stop --dir "$WORK/wv" >/dev/null 2>&1 || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
if [ -z "${CTX_WEAVIATE_URL:-}" ]; then
  CTX_WEAVIATE_URL=$(scripts/weaviate.sh start --nodes "$NODES" --dir "$WORK/wv" | tail -1 | cut -d= -f2-)
  STARTED=1
fi
export CTX_WEAVIATE_URL CTX_CACHE_DIR=$WORK/cache CTX_WEAVIATE_REPLICAS=$REPLICAS
export CTX_WEAVIATE_PREFIX=Bench$(date +%s)
cp -r "$REPO" "$WORK/src"
echo "repo: $REPO (copied), $NODES node(s), replication $REPLICAS, $(nproc) cores, $CTX_WEAVIATE_URL"

run() { # run NAME ARGS...: times one ctx index, prints its sync line
  local name=$1; shift
  /usr/bin/time -f '%e %M' -o "$WORK/$name.time" "$CTX_BIN" index --backend weaviate --repo "$WORK/src" --json "$@" > "$WORK/$name.json"
  read -r s kb < "$WORK/$name.time"
  python3 - "$WORK/$name.json" "$name" "$s" "$kb" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); w = d["weaviate"]; s = float(sys.argv[3])
sync_s = w["ms"] / 1000
rate = w["objects"] / sync_s if sync_s > 0 else 0
print(f"{sys.argv[2]:<12} {s:7.2f} s (sync {sync_s:.2f} s: {w['files_written']} files, {w['objects']} objects, {rate:.0f} objects/s; {w['files_deleted']} deleted), peak RSS {int(sys.argv[4]) // 1024} MB")
PY
}
run cold
run no-change
# Ten files edited: a comment appended to each.
find "$WORK/src" -name '*.go' -path '*/net/http/*' | sort | head -10 | while read -r f; do echo "// edited" >> "$f"; done
run incremental

sleep "$SETTLE"

find_times() { # find_times BACKEND: p50/p95 of search_ms and wall over the queries, all rounds
  local out=$WORK/find-$1.txt
  : > "$out"
  for _ in $(seq "$ROUNDS"); do
    while IFS= read -r q; do
      [ -n "$q" ] || continue
      s=$(date +%s%N)
      "$CTX_BIN" find --backend "$1" --repo "$WORK/src" --json --limit 10 "$q" > "$WORK/find.json"
      e=$(date +%s%N)
      ms=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stats"]["search_ms"])' "$WORK/find.json")
      echo "$ms $(( (e - s) / 1000 ))" >> "$out"
    done < scripts/goroot-queries.txt
  done
  python3 - "$out" "$1" <<'PY'
import sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
p = lambda xs, q: sorted(xs)[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]
a, w = [r[0] for r in rows], [r[1] / 1000 for r in rows]
print(f"find {sys.argv[2]:<9} server-side search_ms p50 {p(a, .5):.1f}, p95 {p(a, .95):.1f}; whole process p50 {p(w, .5):.1f} ms, p95 {p(w, .95):.1f} ms ({len(a)} runs)")
PY
}
find_times weaviate
find_times local
