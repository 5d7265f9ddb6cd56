# phase NAME COMMAND…: runs one step, prints how long it took, and records that in the file
# CATALOG_PHASE_LOG names (when set), from which .ci/run prints its summary. Source it.
phase() {
  local name=$1 started=$SECONDS took
  shift
  "$@"
  took=$((SECONDS - started))
  echo "::: $name: ${took}s"
  if [ -n "${CATALOG_PHASE_LOG:-}" ]; then printf '%s\t%s\n' "$name" "$took" >>"$CATALOG_PHASE_LOG"; fi
}
