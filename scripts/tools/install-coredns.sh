#!/usr/bin/env bash
# CoreDNS, pinned: cluster DNS for the real-cluster test, run as a process beside the kubelet
# (no registry holds its image here). Built with only the plugins that test's Corefile uses
# (plugin-lists/coredns-plugins.go).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/lib/go-tool.sh"
exit_if_installed coredns
MODULE_FILE_REPLACEMENTS="core/plugin/zplugin.go=$here/plugin-lists/coredns-plugins.go" \
  go_build_in_shim_module github.com/coredns/coredns v1.14.7 "" "$TOOLS_BIN" "-s -w" \
  coredns=github.com/coredns/coredns
