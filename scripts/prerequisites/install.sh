#!/usr/bin/env bash
# What the test suite needs on this machine, each part installed only when missing; `npm test`
# runs this first. Debian/Ubuntu packages (as root; otherwise it lists them with the command to
# run, and stops), the pinned Go toolchain and Go-built tools (~/.cache/catalog-gateway/tools),
# the pinned Python tools (~/.cache/catalog-gateway/python), and the Node the gateway image ships
# (scripts/test/image-node). With everything present it takes a second or two.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
source "$here/lib/phase.sh"
export CATALOG_TOOLS_DIR="${CATALOG_TOOLS_DIR:-$HOME/.cache/catalog-gateway/tools}"
mkdir -p "$CATALOG_TOOLS_DIR"

phase "apt packages" bash "$here/install-apt.sh"
# One build at a time on this machine: parallel runs (and the chart tests' requireTool) wait.
phase "go-built tools" flock "$CATALOG_TOOLS_DIR/.install.lock" bash scripts/tools/install-all.sh
phase "python tools" bash "$here/install-python-tools.sh"
phase "image node" node --import tsx scripts/test/image-node.ts
