#!/usr/bin/env bash
# metrics-server, pinned: the real-cluster test runs it as a process beside the kubelet so the
# HPA sees real pod CPU. (v0.8.x is not available from the module proxy; v0.9.0 is.)
set -euo pipefail
source "$(dirname "$0")/lib/go-tool.sh"
exit_if_installed metrics-server
go_install sigs.k8s.io/metrics-server/cmd/metrics-server@v0.9.0 -ldflags "-s -w"
