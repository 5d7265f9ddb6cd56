#!/usr/bin/env bash
# promtool at the version of the chart's Prometheus image (v2.55.1 = Go module v0.55.1): the chart
# tests check the chart's Prometheus config with it. Debian's promtool cannot: Debian builds
# Prometheus without Kubernetes service discovery, which that config uses.
set -euo pipefail
source "$(dirname "$0")/lib/go-tool.sh"
exit_if_installed promtool
version=v0.55.1
# The module's go.mod has replace/exclude directives, so `go install …@version` is refused.
# Static (CGO_ENABLED=0) like the Prometheus that scripts/images/build-prometheus.sh builds from the
# same module for the chart's image: that build then finds nearly every package compiled here.
CGO_ENABLED=0 go_build_in_shim_module github.com/prometheus/prometheus "$version" "" "$TOOLS_BIN" \
  "-s -w -X github.com/prometheus/common/version.Version=2.${version#v0.}" \
  promtool=github.com/prometheus/prometheus/cmd/promtool
