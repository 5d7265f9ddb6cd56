#!/usr/bin/env bash
# Helm, pinned; the chart tests lint, template, install, test, upgrade and roll back with it.
set -euo pipefail
source "$(dirname "$0")/lib/go-tool.sh"
exit_if_installed helm
version=v3.22.0
# Like helm's Makefile: stamp the version, and the Kubernetes version `helm template` and
# `helm lint` assume (that of the client-go helm builds with), or they assume v1.20.
gomod="$(module_file "helm.sh/helm/v3@$version" GoMod)"
client_go_minor="$(awk '$1 == "k8s.io/client-go" { split($2, v, "."); print v[2] }' "$gomod")"
ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$version"
for package in pkg/lint/rules pkg/chartutil; do
  ldflags+=" -X helm.sh/helm/v3/$package.k8sVersionMajor=1 -X helm.sh/helm/v3/$package.k8sVersionMinor=$client_go_minor"
done
go_install "helm.sh/helm/v3/cmd/helm@$version" -ldflags "$ldflags"
