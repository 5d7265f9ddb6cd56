#!/usr/bin/env bash
# The Kubernetes control plane for the chart's cluster test: etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler and kubectl, built from pinned Go modules. etcd is the
# server version Kubernetes itself pins (Debian's 3.4 lacks watch progress notifications, which
# makes `helm install --wait` crawl).
set -euo pipefail
source "$(dirname "$0")/lib/go-tool.sh"
exit_if_installed etcd kube-apiserver kube-controller-manager kube-scheduler kubectl
version=v1.35.4
minor_patch="${version#v1.}"
# Without these the binaries report v0.0.0-master, which kubectl and helm refuse to parse.
version_pkg=k8s.io/component-base/version
ldflags="-s -w -X $version_pkg.gitVersion=$version -X $version_pkg.gitMajor=1 -X $version_pkg.gitMinor=${minor_patch%%.*}"
go_build_in_shim_module k8s.io/kubernetes "$version" "v0.$minor_patch" "$TOOLS_BIN" "$ldflags" \
  etcd=go.etcd.io/etcd/server/v3 \
  kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver \
  kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager \
  kube-scheduler=k8s.io/kubernetes/cmd/kube-scheduler \
  kubectl=k8s.io/kubernetes/cmd/kubectl
