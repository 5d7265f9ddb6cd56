#!/usr/bin/env bash
# kubeconform, pinned: strict schema validation of rendered chart manifests (offline schemas).
set -euo pipefail
source "$(dirname "$0")/lib/go-tool.sh"
exit_if_installed kubeconform
go_install github.com/yannh/kubeconform/cmd/kubeconform@v0.8.0 -ldflags "-s -w"
