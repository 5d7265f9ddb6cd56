#!/usr/bin/env bash
# The pod sandbox image, named as Kubernetes v1.35's default sandbox image, from the pause.c that
# ships in the pinned k8s.io/kubernetes module, compiled static with the host's gcc.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
kubernetes_version=v1.35.4
pause_version=3.10.1 # cmd/kubeadm/app/constants PauseVersion of that release
ref="registry.k8s.io/pause:$pause_version"

module_dir="$(GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$kubernetes_version" |
  sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
binary_dir="$(mktemp -d)"
trap 'rm -rf "$binary_dir"' EXIT
gcc -Os -Wall -Werror -static -DVERSION="v$pause_version" \
  -o "$binary_dir/pause" "$module_dir/build/pause/linux/pause.c"
strip "$binary_dir/pause"
build_image pause "$ref" "$binary_dir/pause=pause"
