#!/usr/bin/env bash
# The project's own images, built from the real gateway/Dockerfile and loader-job/Dockerfile over
# the local Node base (build-node-base.sh), tagged as the chart references them by default
# (repository catalog-gateway / catalog-loader, tag = the chart's appVersion). Rebuilt every run.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
node_image="$(sed -n 's/^ARG NODE_IMAGE=//p' "$REPO_ROOT/gateway/Dockerfile")"
tag="$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$REPO_ROOT/charts/catalog-gateway/Chart.yaml")"

# `npm ci` inside a build reaches the registry only with the machine's CA bundle: mounted for the
# build alone (volumes are never committed) and named in a build-time user npmrc.
npmrc="$(mktemp)"
trap 'rm -f "$npmrc"' EXIT
echo "cafile=/etc/ssl/certs/ca-certificates.crt" >"$npmrc"

for image in gateway:catalog-gateway loader-job:catalog-loader; do
  workspace=${image%%:*} name=${image#*:}
  ref="docker.io/library/$name:$tag"
  podman_build "$REPO_ROOT" "$ref" -f "$REPO_ROOT/$workspace/Dockerfile" \
    --build-arg "NODE_IMAGE=docker.io/library/$node_image" \
    -v /etc/ssl/certs:/etc/ssl/certs:ro -v "$npmrc:/root/.npmrc:ro"
  export_image "$ref" "$name"
done
