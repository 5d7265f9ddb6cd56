#!/usr/bin/env bash
# Builds every pinned Go-built tool the tests need into $CATALOG_TOOLS_DIR/bin, skipping the
# ones already cached there, with the pinned Go (which the test runner puts on PATH too). Each
# tool has its own install-<name>.sh beside this file.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/lib/go-tool.sh"
use_pinned_go
for script in "$here"/install-*.sh; do
  [ "$script" = "$here/install-all.sh" ] && continue
  started=$SECONDS
  bash "$script"
  echo "tools: $(basename "$script") took $((SECONDS - started))s"
done
