#!/usr/bin/env bash
# Jaeger v2 (the OpenTelemetry-Collector-based `jaeger` binary: OTLP in, query API out), pinned;
# the tracing tests send the gateway's traces to it and read them back. Jaeger v2.13.0 is tagged
# v1.76.0 in its Go module.
set -euo pipefail
source "$(dirname "$0")/lib/go-tool.sh"
exit_if_installed jaeger
version=v1.76.0
# The module's go.mod has a replace directive, so `go install …@version` is refused.
go_build_in_shim_module github.com/jaegertracing/jaeger "$version" "" "$TOOLS_BIN" \
  "-s -w -X github.com/jaegertracing/jaeger/internal/version.latestVersion=v2.13.0" \
  jaeger=github.com/jaegertracing/jaeger/cmd/jaeger
