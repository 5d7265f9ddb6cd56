#!/usr/bin/env bash
# The node half of the real-cluster test: kubelet and kube-proxy, built from the same pinned
# k8s.io/kubernetes version as the control plane (install-kubernetes.sh), so node and API server
# never skew.
set -euo pipefail
source "$(dirname "$0")/lib/go-tool.sh"
exit_if_installed kubelet kube-proxy
source "$(dirname "$0")/lib/kubernetes-version.sh"
go_build_in_shim_module k8s.io/kubernetes "$kubernetes_version" "$kubernetes_staging_version" \
  "$TOOLS_BIN" "$kubernetes_ldflags" \
  kubelet=k8s.io/kubernetes/cmd/kubelet \
  kube-proxy=k8s.io/kubernetes/cmd/kube-proxy
