#!/usr/bin/env bash
# kubernetes-validate (PyPI), pinned: bundles the Kubernetes JSON schemas the chart tests
# validate against offline. Lives in its own venv; a wrapper goes into the tools bin dir.
set -euo pipefail
source "$(dirname "$0")/lib/go-tool.sh"
exit_if_installed kubernetes-validate
venv="$CATALOG_TOOLS_DIR/kubernetes-validate-venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "kubernetes-validate==1.37.0"
ln -sf "$venv/bin/kubernetes-validate" "$TOOLS_BIN/kubernetes-validate"
