#!/usr/bin/env bash
# Stand-in for the chart's postgres:15.10 image: Debian bookworm's PostgreSQL 15 with an
# entrypoint that honours the official image's contract (see postgres/docker-entrypoint.sh).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
ref=docker.io/library/postgres:15.10
rootfs="$(debian_rootfs_image postgres --include=postgresql-15,locales \
  "$(system_user_hook postgres 999 /var/lib/postgresql)" \
  --customize-hook='rm -rf "$1"/etc/postgresql/15 "$1"/var/lib/postgresql/15' \
  --customize-hook='sed -ri "s!^#?(listen_addresses)\s*=\s*\S+.*!\1 = '"'*'"'!" "$1"/usr/share/postgresql/15/postgresql.conf.sample' \
  --customize-hook='chroot "$1" localedef -i en_US -c -f UTF-8 -A /usr/share/locale/locale.alias en_US.UTF-8' \
  --customize-hook='mkdir -p "$1"/var/lib/postgresql/data "$1"/docker-entrypoint-initdb.d' \
  --customize-hook='chown 999:999 "$1"/var/lib/postgresql/data && chmod 1777 "$1"/var/lib/postgresql/data')"

build_image postgres "$ref" -- --build-arg "ROOTFS=$rootfs"
