# Shared by the install-<tool>.sh scripts: where tools live, the fast exit when a tool is cached,
# the pinned Go toolchain they are built with, and the two ways a pinned Go tool gets built.
# Source it; do not run it.
CATALOG_TOOLS_DIR="${CATALOG_TOOLS_DIR:-$HOME/.cache/catalog-gateway/tools}"
TOOLS_BIN="$CATALOG_TOOLS_DIR/bin"
mkdir -p "$TOOLS_BIN"

# The Go every tool is built with, pinned like the tools themselves. $CATALOG_TOOLS_DIR/go is its
# GOROOT (a link); the test runner puts its bin dir on PATH too. GOTOOLCHAIN=local: a module
# asking for a newer Go fails the build instead of fetching another toolchain behind our back.
GO_TOOLCHAIN=go1.26.8
PINNED_GOROOT="$CATALOG_TOOLS_DIR/go"
export PATH="$PINNED_GOROOT/bin:$PATH" GOTOOLCHAIN=local
# Every tool is linked stripped (-ldflags "-s -w"): the compiler need not write the debug
# information the linker would drop.
NO_DWARF=-gcflags=all=-dwarf=false

# Points $CATALOG_TOOLS_DIR/go at the pinned toolchain: the machine's own Go when it is that
# version, else the toolchain module (golang.org/toolchain, as the go command fetches it for
# GOTOOLCHAIN) downloaded by whatever go is installed, however old (Debian 12's golang-go is 1.19).
use_pinned_go() {
  [ "$("$PINNED_GOROOT/bin/go" env GOVERSION 2>/dev/null)" = "$GO_TOOLCHAIN" ] && return 0
  local system_go goroot
  system_go="$(PATH="${PATH//"$PINNED_GOROOT/bin:"/}" command -v go)" || {
    echo "go-tool: no go command on PATH: install any Go (Debian: apt-get install golang-go) to fetch Go ${GO_TOOLCHAIN#go}" >&2
    return 1
  }
  if [ "$("$system_go" env GOVERSION)" = "$GO_TOOLCHAIN" ]; then
    goroot="$("$system_go" env GOROOT)"
  else
    echo "go-tool: fetching Go ${GO_TOOLCHAIN#go} with $("$system_go" env GOVERSION)" >&2
    goroot="$(GOFLAGS=-mod=mod "$system_go" mod download -json \
      "golang.org/toolchain@v0.0.1-$GO_TOOLCHAIN.$("$system_go" env GOHOSTOS)-$("$system_go" env GOHOSTARCH)" |
      sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
    # Zipped modules keep no file modes: mark the programs executable, as the go command does.
    chmod a+x "$goroot"/bin/* "$goroot"/pkg/tool/*/*
  fi
  ln -sfn "$goroot" "$PINNED_GOROOT"
}

# Exits the calling script when every named binary is already in the tools bin dir.
exit_if_installed() {
  local name
  for name in "$@"; do
    [ -x "$TOOLS_BIN/$name" ] || return 0
  done
  exit 0
}

# module_file MODULE@VERSION FIELD: a path `go mod download -json` reports for that version (GoMod:
# its go.mod in the module cache; Dir: its extracted source).
module_file() {
  use_pinned_go
  GOFLAGS=-mod=mod go mod download -json "$1" | sed -n "s/^\t\"$2\": \"\\(.*\\)\",\$/\\1/p"
}

# go_install PACKAGE@VERSION [go build flags…]: plain `go install` into the tools bin dir.
go_install() {
  local target=$1; shift
  use_pinned_go
  GOFLAGS=-mod=mod GOBIN="$TOOLS_BIN" go install -trimpath "$NO_DWARF" "$@" "$target"
}

# The file `go build -o DIR/` writes for PACKAGE: its last path element, or the one before a
# major-version suffix (go.etcd.io/etcd/server/v3 → server).
program_name() {
  local name=${1##*/}
  if [[ $name =~ ^v[0-9]+$ ]]; then
    name=${1%/*}
    name=${name##*/}
  fi
  echo "$name"
}

# go_build_in_shim_module MODULE VERSION STAGING_VERSION OUT_DIR LDFLAGS OUTPUT=PACKAGE…
# Some modules (k8s.io/kubernetes, skaffold) carry `replace` directives pointing at paths inside
# their own repo, so `go install module/cmd@version` is refused. We build them from a throwaway
# module that requires MODULE@VERSION with all of its requirements, copies its replace lines, and
# rewrites local `./staging/src/<path>` replaces to the published `<path> STAGING_VERSION`.
# Each OUTPUT=PACKAGE builds PACKAGE (any package in the module graph) to OUT_DIR/OUTPUT; with
# MODULE_FILE_REPLACEMENTS set ("FILE=REPLACEMENT …": paths inside the module, absolute paths of
# ours), the build uses a copy of the module with those files replaced: how a module's generated
# plugin list is swapped for our selection, as its own build would after editing its plugin
# config (the go command refuses overlays of files in the module cache). All of
# them in one `go build`: the go command loads the module graph once and links one program while
# it compiles the next (packages of the same name cannot share one call).
go_build_in_shim_module() {
  local module=$1 version=$2 staging_version=$3 out_dir=$4 ldflags=$5; shift 5
  local shim upstream_gomod target output packages=()
  shim="$(mktemp -d)"
  trap 'rm -rf "$shim"' RETURN
  upstream_gomod="$(module_file "$module@$version" GoMod)"
  {
    echo "module catalog-gateway/tool-shim"
    grep -E '^go [0-9]' "$upstream_gomod"
    echo "require $module $version"
    grep -vE '^(module|go|toolchain|godebug) ' "$upstream_gomod" |
      sed -E "s#=> \./staging/src/([^ ]+)\$#=> \1 $staging_version#" |
      grep -vE '=> \.'
    [ -z "${MODULE_FILE_REPLACEMENTS:-}" ] || echo "replace $module => ./patched-module"
  } >"$shim/go.mod"
  if [ -n "${MODULE_FILE_REPLACEMENTS:-}" ]; then
    cp -r "$(module_file "$module@$version" Dir)" "$shim/patched-module"
    chmod -R u+w "$shim/patched-module"
    for target in $MODULE_FILE_REPLACEMENTS; do cp "${target#*=}" "$shim/patched-module/${target%%=*}"; done
  fi
  for target in "$@"; do packages+=("${target#*=}"); done
  (cd "$shim" && GOFLAGS=-mod=mod go build -trimpath "$NO_DWARF" -ldflags "$ldflags" -o "$shim/programs/" "${packages[@]}")
  for target in "$@"; do
    output="$out_dir/${target%%=*}"
    # Renamed into place from the same directory, so no one ever runs a half-copied program.
    mv "$shim/programs/$(program_name "${target#*=}")" "$output.partial"
    mv "$output.partial" "$output"
  done
}
