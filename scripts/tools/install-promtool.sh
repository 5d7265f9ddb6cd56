#!/usr/bin/env bash
# promtool at the version of the chart's Prometheus image: the chart tests check the chart's
# Prometheus config with it. Debian's promtool cannot: Debian builds Prometheus without Kubernetes
# service discovery, which that config uses.
set -euo pipefail
source "$(dirname "$0")/lib/go-tool.sh"
exit_if_installed promtool
source "$(dirname "$0")/lib/prometheus-version.sh"
# The module's go.mod has replace/exclude directives, so `go install …@version` is refused.
# Static (CGO_ENABLED=0) like the Prometheus that scripts/images/build-prometheus.sh builds from the
# same module for the chart's image: that build then finds nearly every package compiled here.
MODULE_FILE_REPLACEMENTS="$prometheus_plugins" CGO_ENABLED=0 go_build_in_shim_module "$prometheus_module" \
  "$prometheus_version" "" "$TOOLS_BIN" "$prometheus_ldflags" promtool="$prometheus_module/cmd/promtool"
