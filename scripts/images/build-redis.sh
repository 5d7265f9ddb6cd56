#!/usr/bin/env bash
# Stand-in for the chart's redis:7.4.1 image: Debian bookworm's Redis (7.0; the chart relies on
# nothing newer) with an entrypoint that honours the official image's contract (see
# redis/docker-entrypoint.sh).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
ref=docker.io/library/redis:7.4.1
rootfs="$(debian_rootfs_image redis --include=redis-server \
  "$(system_user_hook redis 999 /var/lib/redis)" \
  --customize-hook='mkdir -p "$1"/data && chown 999:999 "$1"/data')"

build_image redis "$ref" -- --build-arg "ROOTFS=$rootfs"
