#!/usr/bin/env bash
# Stand-in for the chart's jaegertracing/jaeger:2.13.0 image: the pinned `jaeger` binary the tools
# build (scripts/tools/install-jaeger.sh: Jaeger 2.13.0 is its Go module's v1.76.0), laid out like
# the official image (/cmd/jaeger/jaeger-linux as entrypoint, uid 10001) on Debian bookworm
# minbase, since that build links glibc. The chart passes --config.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
ref=docker.io/jaegertracing/jaeger:2.13.0
tools_dir="${CATALOG_TOOLS_DIR:-$CATALOG_CACHE_DIR/tools}"
binary="$tools_dir/bin/jaeger"
if [ ! -x "$binary" ]; then
  # As the tests' requireTool does: one install at a time.
  mkdir -p "$tools_dir"
  CATALOG_TOOLS_DIR="$tools_dir" flock "$tools_dir/.install.lock" bash "$REPO_ROOT/scripts/tools/install-jaeger.sh"
fi
rootfs="$(debian_rootfs_image jaeger)"

build_image jaeger "$ref" "$binary=jaeger" -- --build-arg "ROOTFS=$rootfs"
