#!/usr/bin/env bash
# skaffold's custom builder for the local-podman profile (skaffold.yaml): builds $IMAGE from one of
# the project's Dockerfiles with podman, without Docker, and pushes it when skaffold asks
# ($PUSH_IMAGE). skaffold runs it from the repo root:
#   buildCommand: bash scripts/images/skaffold-build.sh gateway/Dockerfile
# CATALOG_BUILD_NAMESPACES_OF=<pid>: build in that process's network and mount namespaces. The
# real-cluster tests run skaffold inside the cluster's network namespace, where the registry
# listens on loopback but npm's registry (which `npm ci` in the Dockerfiles needs) is unreachable;
# the push stays in skaffold's namespace.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dockerfile=$1
: "${IMAGE:?skaffold sets IMAGE, the reference to build}"

build=(bash "$here/build-project-image.sh" "$dockerfile" "$IMAGE")
if [ -n "${CATALOG_BUILD_NAMESPACES_OF:-}" ]; then
  nsenter --target "$CATALOG_BUILD_NAMESPACES_OF" --net --mount -- "${build[@]}"
else
  "${build[@]}"
fi

if [ "${PUSH_IMAGE:-false}" = true ]; then
  # A registry on loopback serves plain HTTP (Debian's docker-registry, a kind or minikube one).
  case "$IMAGE" in
    localhost:* | 127.0.0.1:*) tls=(--tls-verify=false) ;;
    *) tls=() ;;
  esac
  podman push "${tls[@]}" "$IMAGE"
  # The registry holds it now; local copies would pile up, one per change.
  podman rmi "$IMAGE" >/dev/null
fi
