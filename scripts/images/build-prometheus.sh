#!/usr/bin/env bash
# Stand-in for the chart's Prometheus image: the same release (v2.55.1) built static from its Go
# module with the service discoveries promtool is built with (Debian's package is 2.42 and built
# without the Kubernetes service discovery the chart's config uses), laid out like the official
# image: /bin/prometheus as entrypoint, /etc/prometheus, data in /prometheus, uid 65534 (nobody),
# port 9090. Without the web UI's compiled assets (not in the Go module): the API, /-/ready and
# /-/healthy all work.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$REPO_ROOT/scripts/tools/lib/prometheus-version.sh"
ref=docker.io/prom/prometheus:v2.55.1
binary="$(cached_go_binary prometheus "$prometheus_module" "$prometheus_version" \
  "$prometheus_module/cmd/prometheus" "$prometheus_ldflags" \
  "$prometheus_plugins")"

# The data dir, owned by nobody in the image as in the official one.
empty="$(mktemp -d)"
trap 'rm -rf "$empty"' EXIT
build_image prometheus "$ref" "$binary=prometheus" "$empty=data"
