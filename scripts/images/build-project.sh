#!/usr/bin/env bash
# The project's own images, built from the real gateway/Dockerfile and loader-job/Dockerfile over
# the local Node base (build-node-base.sh), tagged as the chart references them by default
# (repository catalog-gateway / catalog-loader, tag = the chart's appVersion). Rebuilt every run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/lib/common.sh"
tag="$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$REPO_ROOT/charts/catalog-gateway/Chart.yaml")"

for image in gateway:catalog-gateway loader-job:catalog-loader; do
  workspace=${image%%:*} name=${image#*:}
  ref="docker.io/library/$name:$tag"
  bash "$here/build-project-image.sh" "$workspace/Dockerfile" "$ref"
  export_image "$ref" "$name"
done
