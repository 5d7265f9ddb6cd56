#!/usr/bin/env bash
# The project's own images, built from the real gateway/Dockerfile and loader-job/Dockerfile over
# the local Node base (build-node-base.sh), tagged as the chart references them by default
# (repository catalog-gateway / catalog-loader, tag = the chart's appVersion). Rebuilt whenever the
# sources change: an image built from the very same working tree (and Node base inputs) is reused, so a
# test run that builds them once (images-build.test.ts) does not pay again in the next
# (real-cluster.test.ts).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/lib/common.sh"
tag="$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$REPO_ROOT/charts/catalog-gateway/Chart.yaml")"

# The working tree as git sees it, untracked files included and ignored ones left out (the
# Dockerfiles' context ignores those too): a tree id that changes with any source.
working_tree() {
  local index
  index="$(mktemp)"
  cp "$(git -C "$REPO_ROOT" rev-parse --path-format=absolute --git-path index)" "$index" 2>/dev/null || true
  GIT_INDEX_FILE="$index" git -C "$REPO_ROOT" add -A .
  GIT_INDEX_FILE="$index" git -C "$REPO_ROOT" write-tree
  rm -f "$index"
}
tree="$(working_tree)"
mkdir -p "$IMAGES_CACHE/project"

for image in gateway:catalog-gateway loader-job:catalog-loader; do
  workspace=${image%%:*} name=${image#*:}
  ref="docker.io/library/$name:$tag"
  # The Node base by what makes it (build-all.sh rebuilds it every run, under a new image id).
  key="$(inputs_hash "$(declare -f working_tree)" "$tree" "$ref" "$here/build-project-image.sh" \
    "$here/build-node-base.sh" "$IMAGES_DIR/node-base/Containerfile" "$here/lib/common.sh")"
  cached="$IMAGES_CACHE/project/$name-$key.oci.tar"
  # Reused only while local storage still holds that very image under REF (the image tests mount it).
  if [ -f "$cached" ] && [ "$(podman image inspect --format '{{.Id}}' "$ref" 2>/dev/null)" = "$(cat "$cached.id" 2>/dev/null)" ]; then
    echo "images: $ref built from these sources before (working tree ${tree:0:12}): reused"
    ln -f "$cached" "$IMAGES_OUT/$name.oci.tar" 2>/dev/null || cp "$cached" "$IMAGES_OUT/$name.oci.tar"
    record_archive "$ref" "$name"
    continue
  fi
  bash "$here/build-project-image.sh" "$workspace/Dockerfile" "$ref"
  export_image "$ref" "$name"
  rm -f "$IMAGES_CACHE/project/$name-"*
  cp "$IMAGES_OUT/$name.oci.tar" "$cached.partial"
  podman image inspect --format '{{.Id}}' "$ref" >"$cached.id"
  mv "$cached.partial" "$cached"
done
