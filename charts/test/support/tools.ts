import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
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
 * A tool we pin is taken from $CATALOG_TOOLS_DIR/bin before PATH: a same-named system binary may
 * be another version or build (Debian's promtool lacks Kubernetes service discovery).
 */
function findExecutable(name: string): string | undefined {
  const pathDirs = (process.env.PATH ?? '').split(delimiter);
  const toolsBin = join(TOOLS_DIR, 'bin');
  const dirs = INSTALL_SCRIPT[name] ? [toolsBin, ...pathDirs] : [...pathDirs, toolsBin];
  return dirs.map((dir) => join(dir, name)).find(isExecutable);
}

/**
 * Path of a tool: the pinned build in $CATALOG_TOOLS_DIR/bin or on PATH, else built by its
 * install script (minutes on a cold machine). Tools that are not ours to build (openssl) must
 * be on PATH; a missing one fails with the Debian package to install.
 */
export function requireTool(name: string, debianPackage?: string): string {
  const found = findExecutable(name);
  if (found) return found;
  const script = INSTALL_SCRIPT[name];
  if (!script) throw new Error(`${name} is not on PATH: install Debian's ${debianPackage ?? name}`);
  console.log(`# ${name} missing: running scripts/tools/${script}`);
  execFileSync('bash', [join(repoRoot, 'scripts/tools', script)], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, CATALOG_TOOLS_DIR: TOOLS_DIR },
  });
  const built = findExecutable(name);
  if (!built) throw new Error(`scripts/tools/${script} ran but did not produce ${name}`);
  return built;
}
