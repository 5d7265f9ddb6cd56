#!/usr/bin/env bash
# The Debian/Ubuntu packages of apt-packages.txt (and, as root, apt-packages-root.txt) that are
# not installed yet: installed when running as root (after apt-get update); otherwise listed with
# the command that installs them, and the run stops there.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
lists=("$here/apt-packages.txt")
if [ "$(id -u)" = 0 ]; then lists+=("$here/apt-packages-root.txt"); fi
mapfile -t wanted < <(cat "${lists[@]}" | grep -v '^\s*#' | grep -v '^\s*$')
# The pinned Go toolchain is fetched by any go command (scripts/tools/lib/go-tool.sh): Debian's
# golang-go only when there is none.
command -v go >/dev/null || wanted+=(golang-go)

# One dpkg-query for all of them (it says nothing of packages it does not know).
mapfile -t installed < <(dpkg-query -W -f='${Package} ${Status}\n' "${wanted[@]}" 2>/dev/null | awk '/ install ok installed$/ { print $1 }')
missing=()
for package in "${wanted[@]}"; do
  [[ " ${installed[*]} " == *" $package "* ]] || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "apt: all ${#wanted[@]} packages present"
  exit 0
fi
if [ "$(id -u)" = 0 ]; then
  echo "apt: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  exit 0
fi
cat >&2 <<MESSAGE
npm test needs these Debian/Ubuntu packages, which are not installed:
  ${missing[*]}
Install them as root, then run npm test again:
  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}
(Without root, the tests that need it, real pods and image builds, are skipped.)
MESSAGE
exit 1
