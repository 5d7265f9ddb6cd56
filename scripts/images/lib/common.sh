# Shared by the build-<image>.sh scripts: where caches and outputs live, the input hash that keys
# the caches, the podman build every image goes through, and the export into the output dir.
# Source it; do not run it.
CATALOG_CACHE_DIR="${CATALOG_CACHE_DIR:-$HOME/.cache/catalog-gateway}"
IMAGES_CACHE="$CATALOG_CACHE_DIR/images"
IMAGES_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO_ROOT="$(cd "$IMAGES_DIR/../.." && pwd)"
# Where the OCI archives and images.json go (build-all.sh's --out sets it).
IMAGES_OUT="${IMAGES_OUT:-$IMAGES_CACHE/out}"
mkdir -p "$IMAGES_CACHE" "$IMAGES_OUT"

# inputs_hash FILE_OR_STRING…: a short hash of the given files' contents (or the strings themselves
# when no such file exists): the key of a cache entry, so editing a script rebuilds what it makes.
inputs_hash() {
  local input
  for input in "$@"; do
    if [ -f "$input" ]; then sha256sum <"$input"; else printf '%s\n' "$input"; fi
  done | sha256sum | cut -c1-16
}

# podman_build CONTEXT_DIR REF [podman build flags…]: builds without a registry (--pull=never: every
# FROM must already be in local storage) and without the host's cgroup-bound OCI runtime
# (--isolation chroot; the default runtime fails on this host's hybrid cgroups).
podman_build() {
  local context=$1 ref=$2; shift 2
  podman build --isolation chroot --network host --pull=never --layers=false -t "$ref" "$@" "$context"
}

# export_image REF ARCHIVE_NAME: writes REF as an OCI archive into the output dir and records it for
# images.json (build-all.sh assembles the manifest from these records).
export_image() {
  local ref=$1 archive="$IMAGES_OUT/$2.oci.tar"
  rm -f "$archive"
  podman save --format oci-archive -o "$archive" "$ref"
  printf '%s\t%s\t%s\n' "$ref" "$archive" "$(stat -c %s "$archive")" >"$IMAGES_OUT/$2.record"
  echo "images: $ref -> $archive ($(du -h "$archive" | cut -f1))"
}
