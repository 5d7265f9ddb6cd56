#!/usr/bin/env bash
# skaffold, pinned; the tests render skaffold.yaml offline with it.
set -euo pipefail
source "$(dirname "$0")/lib/go-tool.sh"
exit_if_installed skaffold
version=v2.16.1
go_build_in_shim_module github.com/GoogleContainerTools/skaffold/v2 "$version" "" "$TOOLS_BIN" \
  "-s -w -X github.com/GoogleContainerTools/skaffold/v2/pkg/skaffold/version.version=$version" \
  skaffold=github.com/GoogleContainerTools/skaffold/v2/cmd/skaffold
