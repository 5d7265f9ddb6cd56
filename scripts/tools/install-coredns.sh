#!/usr/bin/env bash
# CoreDNS, pinned: cluster DNS for the real-cluster test, run as a process beside the kubelet
# (no registry holds its image here).
set -euo pipefail
source "$(dirname "$0")/lib/go-tool.sh"
exit_if_installed coredns
go_install github.com/coredns/coredns@v1.14.7 -ldflags "-s -w"
