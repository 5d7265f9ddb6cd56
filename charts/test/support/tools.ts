import { execFileSync } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export const TOOLS_DIR = process.env.CATALOG_TOOLS_DIR ?? join(homedir(), '.cache/catalog-gateway/tools');

/** The scripts/tools/install-*.sh that builds each pinned tool the chart tests use. */
const INSTALL_SCRIPT: Record<string, string> = {
  helm: 'install-helm.sh',
  kwok: 'install-kwok.sh',
  kubeconform: 'install-kubeconform.sh',
  skaffold: 'install-skaffold.sh',
  'kubernetes-validate': 'install-kubernetes-validate.sh',
  promtool: 'install-promtool.sh',
  etcd: 'install-kubernetes.sh',
  'kube-apiserver': 'install-kubernetes.sh',
  'kube-controller-manager': 'install-kubernetes.sh',
  'kube-scheduler': 'install-kubernetes.sh',
  kubectl: 'install-kubernetes.sh',
  kubelet: 'install-kubernetes.sh',
  'kube-proxy': 'install-kubernetes.sh',
  'metrics-server': 'install-metrics-server.sh',
  coredns: 'install-coredns.sh',
  k6: 'install-k6.sh',
  jaeger: 'install-jaeger.sh',
};

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Tools whose system copy will not do: the control plane and kubectl must be the versions built
 * together (a system kubectl or Debian's etcd 3.4 may be anything), and Debian builds Prometheus
 * without Kubernetes discovery, which promtool then refuses in the chart's config. The tests give
 * Jaeger a v2 configuration file, which a Jaeger v1 on PATH would not take.
 */
const PINNED_ONLY = new Set([
  'promtool',
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kubectl',
  'kubelet',
  'kube-proxy',
  'jaeger',
]);

function findExecutable(name: string): string | undefined {
  const toolsBin = join(TOOLS_DIR, 'bin');
  const dirs = PINNED_ONLY.has(name) ? [toolsBin] : [...(process.env.PATH ?? '').split(delimiter), toolsBin];
  return dirs.map((dir) => join(dir, name)).find(isExecutable);
}

/**
 * Path of a tool: from PATH, else from $CATALOG_TOOLS_DIR/bin, else built there by its install
 * script (minutes on a cold machine). Tools that are not ours to build (openssl) must
 * be on PATH; a missing one fails with the Debian package to install.
 */
export function requireTool(name: string, debianPackage?: string): string {
  const found = findExecutable(name);
  if (found) return found;
  const script = INSTALL_SCRIPT[name];
  if (!script) throw new Error(`${name} is not on PATH: install Debian's ${debianPackage ?? name}`);
  console.log(`# ${name} missing: running scripts/tools/${script}`);
  // Test files run in parallel: one install at a time, the second finds the tool built.
  mkdirSync(TOOLS_DIR, { recursive: true });
  execFileSync('flock', [join(TOOLS_DIR, '.install.lock'), 'bash', join(repoRoot, 'scripts/tools', script)], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, CATALOG_TOOLS_DIR: TOOLS_DIR },
  });
  const built = findExecutable(name);
  if (!built) throw new Error(`scripts/tools/${script} ran but did not produce ${name}`);
  return built;
}
