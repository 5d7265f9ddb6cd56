#!/usr/bin/env bash
# Builds the pinned k6 (load-test runner for k6/) into $CATALOG_TOOLS_DIR/bin; exits at once when
# it is already there. `go install` builds k6 from source, with the Prometheus remote-write output
# that `npm run loadtest -- … --prometheus-url` and the dashboard end-to-end test rely on.
set -euo pipefail
K6_VERSION=v1.8.1
CATALOG_TOOLS_DIR="${CATALOG_TOOLS_DIR:-$HOME/.cache/catalog-gateway/tools}"
bin_dir="$CATALOG_TOOLS_DIR/bin"
if [ -x "$bin_dir/k6" ]; then
  exit 0
fi
mkdir -p "$bin_dir"
echo "install-k6: building go.k6.io/k6@$K6_VERSION into $bin_dir"
GOFLAGS=-mod=mod GOBIN="$bin_dir" go install "go.k6.io/k6@$K6_VERSION"
"$bin_dir/k6" version
