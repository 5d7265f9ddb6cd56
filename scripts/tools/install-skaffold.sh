#!/usr/bin/env bash
# skaffold, pinned; the tests render skaffold.yaml offline with it.
set -euo pipefail
source "$(dirname "$0")/lib/go-tool.sh"
exit_if_installed skaffold
go_build_in_shim_module github.com/GoogleContainerTools/skaffold/v2 v2.16.1 "" "$TOOLS_BIN" "-s -w" \
  skaffold=github.com/GoogleContainerTools/skaffold/v2/cmd/skaffold
