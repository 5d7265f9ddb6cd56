#!/usr/bin/env bash
# One of the project's images, built with podman from its real Dockerfile (the repo root is the
# context: npm workspaces share one lockfile) over the local Node base (build-node-base.sh):
#   scripts/images/build-project-image.sh gateway/Dockerfile docker.io/library/catalog-gateway:0.1.0
# Used by build-project.sh (the chart's default tags) and skaffold-build.sh (skaffold's tags).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/lib/common.sh"
dockerfile=$1 ref=$2
node_image="docker.io/library/$(sed -n 's/^ARG NODE_IMAGE=//p' "$REPO_ROOT/$dockerfile")"
podman image exists "$node_image" || bash "$here/build-node-base.sh"

# `npm ci` inside a build reaches the registry only with the machine's CA bundle: mounted for the
# build alone (volumes are never committed) and named in a build-time user npmrc.
npmrc="$(mktemp)"
trap 'rm -f "$npmrc"' EXIT
echo "cafile=/etc/ssl/certs/ca-certificates.crt" >"$npmrc"
podman_build "$REPO_ROOT" "$ref" -f "$REPO_ROOT/$dockerfile" --build-arg "NODE_IMAGE=$node_image" \
  -v /etc/ssl/certs:/etc/ssl/certs:ro -v "$npmrc:/root/.npmrc:ro"
