#!/usr/bin/env bash
# ctx import + catch-up against a cold index, on the Go standard library
# ($(go env GOROOT)/src): copy A of it is indexed and exported; copy B, at
# another path with CHANGED of A's indexed .go files each given one more
# function, is then indexed cold (a fresh cache dir) and imported from A's
# archive (another fresh cache dir), alternately for ROUNDS rounds. Prints
# each time and the medians; the import's target is at most 15% of the cold
# index.
#
#   scripts/bench-import.sh            # builds bin/ctx; work in a temp dir
#   CTX_BIN=/path/to/ctx WORK=/tmp/exp scripts/bench-import.sh
#
# Environment: REPO (default $(go env GOROOT)/src), ROUNDS (default 3),
# CHANGED (default 20), WORK (kept when given), CTX_EMBED_PROVIDER etc.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=${REPO:-$(go env GOROOT)/src}
ROUNDS=${ROUNDS:-3}
CHANGED=${CHANGED:-20}
if [ -z "${CTX_BIN:-}" ]; then
  go build -o bin/ctx ./cmd/ctx
  CTX_BIN=$PWD/bin/ctx
fi
if [ -z "${WORK:-}" ]; then
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
A=$WORK/a B=$WORK/checkout-b
if [ ! -d "$A" ]; then cp -r "$REPO" "$A"; fi
echo "repo: $REPO ($(nproc) cores), $CHANGED files changed in B"
CTX_CACHE_DIR=$WORK/cache-a "$CTX_BIN" index --repo "$A" --json > /dev/null
CTX_CACHE_DIR=$WORK/cache-a "$CTX_BIN" export --json --repo "$A" "$WORK/index.tar.gz"
if [ ! -d "$B" ]; then
  cp -r "$A" "$B"
  # Files the index holds (not skipped as generated, vendored or test data).
  python3 - "$WORK"/cache-a/*.db "$CHANGED" > "$WORK/changed.txt" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
paths = [r[0] for r in db.execute("select path from files where language = 'go' order by path")]
print("\n".join(paths[7::300][:int(sys.argv[2])]))
PY
  i=0
  while read -r f; do
    printf '\nfunc ctxImportBench%d() int { return %d }\n' "$i" "$i" >> "$B/$f"
    i=$((i + 1))
  done < "$WORK/changed.txt"
fi

secs() { /usr/bin/time -f '%e' -o "$WORK/t" "$@" > "$WORK/out.json"; cat "$WORK/t"; }
cold=() imp=()
for r in $(seq "$ROUNDS"); do
  rm -rf "$WORK/cache-cold" "$WORK/cache-imp"
  c=$(CTX_CACHE_DIR=$WORK/cache-cold secs "$CTX_BIN" index --repo "$B" --json)
  i=$(CTX_CACHE_DIR=$WORK/cache-imp secs "$CTX_BIN" import --repo "$B" --json "$WORK/index.tar.gz")
  echo "round $r: cold index ${c} s, import + catch-up ${i} s: $(tr -d '\n ' < "$WORK/out.json")"
  cold+=("$c") imp+=("$i")
  # The next run after an import changes nothing.
  CTX_CACHE_DIR=$WORK/cache-imp "$CTX_BIN" index --repo "$B" --json | grep -E '"(added|changed|touched|deleted)"' | tr -d '\n '; echo
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
mc=$(median "${cold[@]}") mi=$(median "${imp[@]}")
echo "median: cold index ${mc} s, import + catch-up ${mi} s ($(awk -v i="$mi" -v c="$mc" 'BEGIN {printf "%.1f", 100*i/c}')% of cold)"
