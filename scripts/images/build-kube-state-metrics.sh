#!/usr/bin/env bash
# Stand-in for the chart's kube-state-metrics image: the upstream binary built from its Go module,
# static, on an empty base like the official (distroless) image, same entrypoint and uid.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
ref=registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.14.0
# The Go module proxy refuses v2.14.0 ("not available"); v2.15.0 is the nearest release it serves.
version=v2.15.0
binary="$(cached_go_binary kube-state-metrics k8s.io/kube-state-metrics/v2 "$version" \
  k8s.io/kube-state-metrics/v2 "-s -w -X github.com/prometheus/common/version.Version=$version")"

build_image kube-state-metrics "$ref" "$binary=kube-state-metrics"
