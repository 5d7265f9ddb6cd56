#!/usr/bin/env bash
# k6, pinned: the load-test runner for k6/, built from source with the Prometheus remote-write
# output that `npm run loadtest -- … --prometheus-url` and the dashboard end-to-end test rely on.
set -euo pipefail
source "$(dirname "$0")/lib/go-tool.sh"
exit_if_installed k6
go_install go.k6.io/k6@v1.8.1 -ldflags "-s -w"
