import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../chart.js';

/** The images helper's build: every image the chart runs plus the pause image, as OCI archives. */
export const IMAGES_BUILD_SCRIPT = join(REPO_ROOT, 'scripts/images/build-all.sh');

function commandWorks(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Why this machine cannot run the real cluster, or undefined when it can. The Go-built tools are
 * not checked: requireTool builds a missing one.
 */
export function missingPrerequisite(): string | undefined {
  if (process.platform !== 'linux') return 'needs Linux (network namespaces, cgroups)';
  if (process.getuid?.() !== 0) return 'needs root (network namespaces, mounts, containers)';
  if (!commandWorks('ip', ['netns', 'list'])) return 'needs `ip netns` (Debian package iproute2)';
  for (const [command, debianPackage] of [
    ['containerd', 'containerd'],
    ['ctr', 'containerd'],
    ['runc', 'runc'],
    ['iptables', 'iptables'],
    ['conntrack', 'conntrack'],
    ['curl', 'curl'],
    // The dev-loop steps: skaffold's builds (podman) and the registry it pushes to.
    ['podman', 'podman'],
    ['nsenter', 'util-linux'],
    ['docker-registry', 'docker-registry'],
  ]) {
    if (!commandWorks('which', [command!])) return `needs ${command} (Debian package ${debianPackage})`;
  }
  if (!existsSync('/usr/lib/cni/bridge')) return 'needs the bridge CNI plugin (Debian package containernetworking-plugins)';
  if (!process.env.CATALOG_IMAGES_DIR && !existsSync(IMAGES_BUILD_SCRIPT)) {
    return `needs the images: ${IMAGES_BUILD_SCRIPT} or CATALOG_IMAGES_DIR with an images.json`;
  }
  return undefined;
}
