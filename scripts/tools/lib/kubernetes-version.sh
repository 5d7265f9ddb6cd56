# The one pinned Kubernetes version that install-kubernetes.sh builds control plane and node
# from. Source it; do not run it.
kubernetes_version=v1.35.4
_minor_patch="${kubernetes_version#v1.}"
# Staging modules (k8s.io/api, k8s.io/client-go, …) are published as v0.<minor>.<patch>.
kubernetes_staging_version="v0.$_minor_patch"
# Without the version stamps the binaries report v0.0.0-master, which kubectl and helm refuse.
_version_pkg=k8s.io/component-base/version
kubernetes_ldflags="-s -w -X $_version_pkg.gitVersion=$kubernetes_version -X $_version_pkg.gitMajor=1 -X $_version_pkg.gitMinor=${_minor_patch%%.*}"
