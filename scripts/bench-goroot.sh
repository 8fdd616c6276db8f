#!/usr/bin/env bash
# Whole-process benchmark of ctx on the Go standard library
# ($(go env GOROOT)/src): cold index time and peak RSS, no-change re-index
# time, index size against source bytes, and `ctx find` wall time over the 50
# queries in scripts/goroot-queries.txt (p50/p95 over 3 rounds).
#
#   scripts/bench-goroot.sh            # builds bin/ctx, uses a fresh cache dir
#   CTX_BIN=/path/to/ctx scripts/bench-goroot.sh
#
# Environment: REPO (default $(go env GOROOT)/src), ROUNDS (default 3),
# CTX_EMBED_PROVIDER etc. pass through to ctx.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=${REPO:-$(go env GOROOT)/src}
ROUNDS=${ROUNDS:-3}
if [ -z "${CTX_BIN:-}" ]; then
  go build -o bin/ctx ./cmd/ctx
  CTX_BIN=$PWD/bin/ctx
fi
CACHE=$(mktemp -d)
trap 'rm -rf "$CACHE"' EXIT
export CTX_CACHE_DIR=$CACHE

echo "repo: $REPO ($(nproc) cores)"
/usr/bin/time -f '%e %M' -o "$CACHE/cold.time" "$CTX_BIN" index --repo "$REPO" --json > "$CACHE/cold.json"
read -r cold_s cold_kb < "$CACHE/cold.time"
echo "cold index:      ${cold_s} s, peak RSS $((cold_kb / 1024)) MB"
/usr/bin/time -f '%e %M' -o "$CACHE/warm.time" "$CTX_BIN" index --repo "$REPO" --json > /dev/null
read -r warm_s warm_kb < "$CACHE/warm.time"
echo "no-change index: ${warm_s} s, peak RSS $((warm_kb / 1024)) MB"

db_bytes=$(du -cb "$CACHE"/*.db* | tail -1 | cut -f1)
indexed_bytes=$(python3 - "$CACHE" "$REPO" <<'PY'
import glob, os, sqlite3, sys
cache, repo = sys.argv[1], sys.argv[2]
db = sqlite3.connect(glob.glob(os.path.join(cache, "*.db"))[0])
print(sum(r[0] for r in db.execute("select size from files")))
PY
)
total_src=$(du -sb "$REPO" | cut -f1)
python3 - "$db_bytes" "$indexed_bytes" "$total_src" <<'PY'
import sys
db, idx, total = map(int, sys.argv[1:])
print(f"index size:      {db/2**20:.1f} MiB = {db/idx:.2f}x indexed source ({idx/2**20:.1f} MiB), {db/total:.2f}x all of the tree ({total/2**20:.1f} MiB)")
PY

times=()
for r in $(seq "$ROUNDS"); do
  while IFS= read -r q; do
    [ -n "$q" ] || continue
    s=$(date +%s%N)
    "$CTX_BIN" find --repo "$REPO" --json --limit 10 "$q" > /dev/null
    e=$(date +%s%N)
    times+=($(( (e - s) / 1000 )))
  done < scripts/goroot-queries.txt
done
printf '%s\n' "${times[@]}" | python3 -c '
import statistics, sys
t = sorted(int(x) / 1000 for x in sys.stdin)
p = lambda q: t[min(len(t) - 1, int(round(q * (len(t) - 1))))]
print(f"find (whole process, {len(t)} runs): p50 {p(0.5):.1f} ms, p95 {p(0.95):.1f} ms, max {t[-1]:.1f} ms")
'
