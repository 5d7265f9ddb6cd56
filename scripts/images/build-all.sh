#!/usr/bin/env bash
# Builds every image the chart's real-cluster test runs and exports each as an OCI archive into
# one output dir, with images.json mapping each full image reference to its archive and size:
#   scripts/images/build-all.sh [--out DIR]     (default ~/.cache/catalog-gateway/images/out)
# Slow, stable inputs (Debian root filesystems, Go-built binaries) are cached; the project's
# images are rebuilt whenever the sources change. Needs root, podman, mmdebstrap, gcc and go (see README.md).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ "${1:-}" = --out ]; then
  mkdir -p "$2"
  IMAGES_OUT="$(cd "$2" && pwd)"
  export IMAGES_OUT
fi
source "$here/lib/common.sh"
# One build at a time on this machine (test files run in parallel and share tags and caches).
exec 9>"$IMAGES_CACHE/.build.lock"
flock 9

rm -f "$IMAGES_OUT"/*.record "$IMAGES_OUT"/*.oci.tar "$IMAGES_OUT/images.json"
# node-base before project: the project's Dockerfiles build FROM it.
for step in pause node-base project postgres redis prometheus kube-state-metrics jaeger; do
  started=$SECONDS
  bash "$here/build-$step.sh"
  echo "images: build-$step.sh took $((SECONDS - started))s"
done

node --input-type=module - "$IMAGES_OUT" <<'JS'
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
const out = process.argv[2];
const images = {};
for (const record of readdirSync(out).filter((name) => name.endsWith('.record')).sort()) {
  const [ref, archive, bytes] = readFileSync(join(out, record), 'utf8').trim().split('\t');
  images[ref] = { archive, bytes: Number(bytes) };
  rmSync(join(out, record));
}
writeFileSync(join(out, 'images.json'), `${JSON.stringify(images, null, 2)}\n`);
JS
echo "images: manifest $IMAGES_OUT/images.json"
