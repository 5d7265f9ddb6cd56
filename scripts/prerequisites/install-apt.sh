#!/usr/bin/env bash
# Installs the Debian packages listed in .ci/apt-packages.txt that are not installed yet.
set -euo pipefail
cd "$(dirname "$0")"
mapfile -t wanted < <(grep -v '^\s*#' apt-packages.txt | grep -v '^\s*$')
missing=()
for package in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "apt: all ${#wanted[@]} packages present"
  exit 0
fi
echo "apt: installing ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
