#!/usr/bin/env bash
# kwok, pinned: simulates nodes and pod lifecycles for the chart's cluster test.
set -euo pipefail
source "$(dirname "$0")/lib/go-tool.sh"
exit_if_installed kwok
go_install sigs.k8s.io/kwok/cmd/kwok@v0.8.0 -ldflags "-s -w"
