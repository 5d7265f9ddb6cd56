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
# when no such file exists): the key of a cache entry, so changing an input rebuilds what it makes.
inputs_hash() {
  local input
  for input in "$@"; do
    if [ -f "$input" ]; then sha256sum <"$input"; else printf '%s\n' "$input"; fi
  done | sha256sum | cut -c1-16
}

# podman_build CONTEXT_DIR REF [podman build flags…]: builds without a registry (--pull=never: every
# FROM must already be in local storage) and without the host's cgroup-bound OCI runtime
# (--isolation chroot; the default runtime fails on this host's hybrid cgroups).
# The image REF named before is removed once the new one takes the name, so storage does not grow
# by a dangling copy per run (it stays if a container still uses it).
podman_build() {
  local context=$1 ref=$2; shift 2
  local previous
  previous="$(podman image inspect --format '{{.Id}}' "$ref" 2>/dev/null || true)"
  podman build --isolation chroot --network host --pull=never --layers=false -t "$ref" "$@" "$context"
  if [ -n "$previous" ] && [ "$previous" != "$(podman image inspect --format '{{.Id}}' "$ref")" ]; then
    podman rmi "$previous" >/dev/null 2>&1 || true
  fi
}

# build_image NAME REF [SOURCE=DEST…] [-- podman build flags…]: builds REF from a context holding
# scripts/images/NAME/ (its Containerfile and files) plus each SOURCE copied to DEST, and exports
# it as NAME.oci.tar.
build_image() {
  local name=$1 ref=$2; shift 2
  local context
  context="$(mktemp -d)"
  cp -r "$IMAGES_DIR/$name/." "$context/"
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    cp -r "${1%%=*}" "$context/${1#*=}"
    shift
  done
  [ $# -gt 0 ] && shift
  podman_build "$context" "$ref" "$@"
  rm -rf "$context"
  export_image "$ref" "$name"
}

# export_image REF ARCHIVE_NAME: writes REF as an OCI archive into the output dir and records it for
# images.json (build-all.sh assembles the manifest from these records).
export_image() {
  local ref=$1 archive="$IMAGES_OUT/$2.oci.tar"
  rm -f "$archive"
  podman save --format oci-archive -o "$archive" "$ref"
  record_archive "$ref" "$2"
}

# record_archive REF ARCHIVE_NAME: records the output dir's ARCHIVE_NAME.oci.tar as REF's for images.json.
record_archive() {
  local ref=$1 archive="$IMAGES_OUT/$2.oci.tar"
  printf '%s\t%s\t%s\n' "$ref" "$archive" "$(stat -c %s "$archive")" >"$IMAGES_OUT/$2.record"
  echo "images: $ref -> $archive ($(du -h "$archive" | cut -f1))"
}

# cached_go_binary NAME MODULE VERSION PACKAGE LDFLAGS [FILE=REPLACEMENT…]: path of a static
# (CGO_ENABLED=0) build of PACKAGE from MODULE@VERSION, built once into the cache (keyed by these
# inputs, the replacements' content and this function) through the tools' shim module, which copes
# with modules carrying replace directives. Each FILE of the module is replaced by REPLACEMENT
# (MODULE_FILE_REPLACEMENTS of go_build_in_shim_module).
cached_go_binary() {
  local name=$1 module=$2 version=$3 package=$4 ldflags=$5; shift 5
  local binary
  binary="$IMAGES_CACHE/bin/$name-$(inputs_hash "$(declare -f cached_go_binary)" \
    "$REPO_ROOT/scripts/tools/lib/go-tool.sh" "$module@$version" "$package" "$ldflags" "$@" \
    "${@#*=}")"
  if [ ! -x "$binary" ]; then
    mkdir -p "$IMAGES_CACHE/bin"
    (
      source "$REPO_ROOT/scripts/tools/lib/go-tool.sh"
      MODULE_FILE_REPLACEMENTS="$*" CGO_ENABLED=0 go_build_in_shim_module "$module" "$version" "" "$IMAGES_CACHE/bin" "$ldflags" \
        "$(basename "$binary").partial=$package"
    ) >&2
    mv "$binary.partial" "$binary"
  fi
  echo "$binary"
}

# debian_rootfs_image NAME [mmdebstrap options…]: the local image name of a Debian bookworm minbase
# root filesystem with the given options (--include=…, hooks). The tarball is cached (keyed by the
# options and this function) and imported into podman storage once. The host's own
# apt sources are used, and none are left in the image; documentation is left out.
debian_rootfs_image() {
  local name=$1; shift
  local key tarball ref
  key="$(inputs_hash "$(declare -f debian_rootfs_image)" "$@")"
  tarball="$IMAGES_CACHE/rootfs/$name-$key.tar"
  ref="localhost/catalog-gateway/rootfs-$name:$key"
  if [ ! -f "$tarball" ]; then
    mkdir -p "$IMAGES_CACHE/rootfs"
    rm -f "$IMAGES_CACHE/rootfs/$name-"*.tar
    mmdebstrap --variant=minbase --format=tar \
      --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
      --dpkgopt='path-exclude=/usr/share/info/*' \
      "$@" \
      --customize-hook='rm -rf "$1"/etc/apt/sources.list "$1"/etc/apt/sources.list.d/*' \
      bookworm "$tarball.partial" </dev/null >&2
    mv "$tarball.partial" "$tarball"
  fi
  if ! podman image exists "$ref"; then
    podman images --format '{{.Repository}}:{{.Tag}}' --filter "reference=localhost/catalog-gateway/rootfs-$name" |
      xargs --no-run-if-empty podman rmi >/dev/null 2>&1 || true
    podman import "$tarball" "$ref" >&2
  fi
  echo "$ref"
}

# system_user_hook NAME UID HOME: an mmdebstrap --essential-hook creating NAME with the official
# image's uid/gid before the packages install, so their maintainer scripts adopt that account.
system_user_hook() {
  local name=$1 uid=$2 home=$3
  printf -- '--essential-hook=echo "%s:x:%s:%s::%s:/usr/sbin/nologin" >>"$1/etc/passwd"; echo "%s:x:%s:" >>"$1/etc/group"; echo "%s:*:1::::::" >>"$1/etc/shadow"' \
    "$name" "$uid" "$uid" "$home" "$name" "$uid" "$name"
}
