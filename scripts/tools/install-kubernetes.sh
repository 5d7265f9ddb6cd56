#!/usr/bin/env bash
# The Kubernetes binaries of the chart's cluster tests, built from one pinned k8s.io/kubernetes
# version in one `go build`, so node and API server never skew: the control plane (etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler, kubectl) and the node half of the
# real-cluster test (kubelet, kube-proxy). etcd is the server version Kubernetes itself pins
# (Debian's 3.4 lacks watch progress notifications, which makes `helm install --wait` crawl).
set -euo pipefail
source "$(dirname "$0")/lib/go-tool.sh"
exit_if_installed etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kubelet kube-proxy
source "$(dirname "$0")/lib/kubernetes-version.sh"
go_build_in_shim_module k8s.io/kubernetes "$kubernetes_version" "$kubernetes_staging_version" \
  "$TOOLS_BIN" "$kubernetes_ldflags" \
  etcd=go.etcd.io/etcd/server/v3 \
  kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver \
  kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager \
  kube-scheduler=k8s.io/kubernetes/cmd/kube-scheduler \
  kubectl=k8s.io/kubernetes/cmd/kubectl \
  kubelet=k8s.io/kubernetes/cmd/kubelet \
  kube-proxy=k8s.io/kubernetes/cmd/kube-proxy
