#!/usr/bin/env bash
# Builds every pinned Go-built tool the tests need into $CATALOG_TOOLS_DIR/bin, skipping the
# ones already cached there, with the pinned Go (which the test runner puts on PATH too). Each
# tool has its own install-<name>.sh beside this file.
#
# Two at a time, the longest first: a build spends much of its time downloading modules or
# linking one program on one core, and the other build uses what that leaves idle.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/lib/go-tool.sh"
use_pinned_go

longest_first=(kubernetes jaeger skaffold promtool coredns metrics-server k6 kwok helm)
scripts=()
for name in "${longest_first[@]}"; do
  [ -f "$here/install-$name.sh" ] && scripts+=("$here/install-$name.sh")
done
for script in "$here"/install-*.sh; do
  [[ "$script" == "$here/install-all.sh" || " ${scripts[*]} " == *" $script "* ]] || scripts+=("$script")
done

# Each build's output is printed whole when it ends, so two builds' lines never interleave.
printf '%s\0' "${scripts[@]}" | xargs -0 -n 1 -P 2 bash -c '
  started=$SECONDS
  if output="$(bash "$1" 2>&1)"; then failed=""; else failed=", FAILED"; fi
  [ -z "$output" ] || printf "%s\n" "$output"
  echo "tools: $(basename "$1") took $((SECONDS - started))s$failed"
  [ -z "$failed" ]
' install-one
