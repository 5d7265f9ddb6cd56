#!/usr/bin/env bash
# Installs the pinned Python tools (python-requirements.txt) into a venv under the tools cache,
# skipping the install when that venv already matches the requirements file.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${CATALOG_PYTHON_VENV:-$HOME/.cache/catalog-gateway/python}"
stamp="$venv/.requirements.sha256"
wanted="$(sha256sum "$here/python-requirements.txt" | cut -d' ' -f1)"
if [ -x "$venv/bin/schemathesis" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ]; then
  echo "python tools: cached in $venv"
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/python-requirements.txt"
echo "$wanted" > "$stamp"
echo "python tools: installed into $venv"
