#!/usr/bin/env bash
# Stand-in for the chart's Prometheus image: the same release (v2.55.1 = Go module v0.55.1) built
# static from its Go module (Debian's package is 2.42 and built without the Kubernetes service
# discovery the chart's config uses), laid out like the official image: /bin/prometheus as
# entrypoint, /etc/prometheus, data in /prometheus, uid 65534 (nobody), port 9090. Without the
# web UI's compiled assets (not in the Go module): the API, /-/ready and /-/healthy all work.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
ref=docker.io/prom/prometheus:v2.55.1
version=v0.55.1
binary="$(cached_go_binary prometheus github.com/prometheus/prometheus "$version" \
  github.com/prometheus/prometheus/cmd/prometheus \
  "-s -w -X github.com/prometheus/common/version.Version=2.${version#v0.}")"

# The data dir, owned by nobody in the image as in the official one.
empty="$(mktemp -d)"
trap 'rm -rf "$empty"' EXIT
build_image prometheus "$ref" "$binary=prometheus" "$empty=data"
