# Shared by the install-<tool>.sh scripts: where tools live, the fast exit when a tool is cached,
# and the two ways a pinned Go tool gets built. Source it; do not run it.
CATALOG_TOOLS_DIR="${CATALOG_TOOLS_DIR:-$HOME/.cache/catalog-gateway/tools}"
TOOLS_BIN="$CATALOG_TOOLS_DIR/bin"
mkdir -p "$TOOLS_BIN"

# Exits the calling script when every named binary is already in the tools bin dir.
exit_if_installed() {
  local name
  for name in "$@"; do
    [ -x "$TOOLS_BIN/$name" ] || return 0
  done
  exit 0
}

# module_gomod MODULE@VERSION: path of that version's go.mod in the module cache.
module_gomod() {
  GOFLAGS=-mod=mod go mod download -json "$1" | sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p'
}

# go_install PACKAGE@VERSION [go build flags…]: plain `go install` into the tools bin dir.
go_install() {
  local target=$1; shift
  GOFLAGS=-mod=mod GOBIN="$TOOLS_BIN" go install -trimpath "$@" "$target"
}

# go_build_in_shim_module MODULE VERSION STAGING_VERSION OUT_DIR LDFLAGS OUTPUT=PACKAGE…
# Some modules (k8s.io/kubernetes, skaffold) carry `replace` directives pointing at paths inside
# their own repo, so `go install module/cmd@version` is refused. We build them from a throwaway
# module that requires MODULE@VERSION with all of its requirements, copies its replace lines, and
# rewrites local `./staging/src/<path>` replaces to the published `<path> STAGING_VERSION`.
# Each OUTPUT=PACKAGE builds PACKAGE (any package in the module graph) to OUT_DIR/OUTPUT.
go_build_in_shim_module() {
  local module=$1 version=$2 staging_version=$3 out_dir=$4 ldflags=$5; shift 5
  local shim upstream_gomod target
  shim="$(mktemp -d)"
  trap 'rm -rf "$shim"' RETURN
  upstream_gomod="$(module_gomod "$module@$version")"
  {
    echo "module catalog-gateway/tool-shim"
    grep -E '^go [0-9]' "$upstream_gomod"
    echo "require $module $version"
    grep -vE '^(module|go|toolchain|godebug) ' "$upstream_gomod" |
      sed -E "s#=> \./staging/src/([^ ]+)\$#=> \1 $staging_version#" |
      grep -vE '=> \.'
  } >"$shim/go.mod"
  for target in "$@"; do
    (cd "$shim" && GOFLAGS=-mod=mod go build -trimpath -ldflags "$ldflags" \
      -o "$out_dir/${target%%=*}" "${target#*=}")
  done
}
