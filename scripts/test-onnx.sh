#!/usr/bin/env bash
# Runs the onnx embedding provider's tests (internal/embed/onnx, build tag
# onnx) against a real ONNX Runtime: installs the npm package
# onnxruntime-node into a temporary directory, points CTX_ONNXRUNTIME_LIB at
# the libonnxruntime.so.1 it ships, and runs go test. Needs npm, cgo and
# network access to the npm registry; linux/x64 and linux/arm64 only.
#
#   scripts/test-onnx.sh                 # onnxruntime-node 1.30.0
#   scripts/test-onnx.sh -race -v        # extra go test flags
#   ORT_NODE_VERSION=1.24.3 scripts/test-onnx.sh
#
# onnxruntime_go v1.27.0 asks for ONNX Runtime C API version 24, which every
# ONNX Runtime from 1.24 on provides; 1.24.3 and 1.30.0 both pass. With
# CTX_ONNXRUNTIME_LIB already set, the script uses that library instead.
set -euo pipefail
cd "$(dirname "$0")/.."
ORT_NODE_VERSION=${ORT_NODE_VERSION:-1.30.0}

if [ -z "${CTX_ONNXRUNTIME_LIB:-}" ]; then
  case "$(uname -s)/$(uname -m)" in
    Linux/x86_64) arch=x64 ;;
    Linux/aarch64 | Linux/arm64) arch=arm64 ;;
    *) echo "test-onnx.sh: no onnxruntime-node library for $(uname -s)/$(uname -m); set CTX_ONNXRUNTIME_LIB" >&2; exit 1 ;;
  esac
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # --ignore-scripts: the install script only fetches optional CUDA
  # libraries from NuGet; the CPU library is in the package.
  (cd "$tmp" && npm install --no-audit --no-fund --ignore-scripts "onnxruntime-node@$ORT_NODE_VERSION" >/dev/null)
  lib=$(ls "$tmp"/node_modules/onnxruntime-node/bin/napi-v*/linux/"$arch"/libonnxruntime.so.* 2>/dev/null | head -n 1 || true)
  if [ -z "$lib" ]; then
    echo "test-onnx.sh: onnxruntime-node@$ORT_NODE_VERSION has no libonnxruntime.so for linux/$arch" >&2
    exit 1
  fi
  export CTX_ONNXRUNTIME_LIB=$lib
fi
echo "ONNX Runtime: $CTX_ONNXRUNTIME_LIB" >&2
go test -tags onnx -count=1 "$@" ./internal/embed/onnx/
