import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from '../chart.js';
import { GroupProcess, run, type RunResult } from '../../../../scripts/test/process.js';
import { skaffoldEnvironment } from '../skaffold.js';
import { requireTool } from '../tools.js';
import { NODE } from './node-config.js';
import type { RealCluster } from './real-cluster.js';

/** Where the copy keeps the release's extra values (.data/ is ignored by git and by image builds). */
const VALUES_FILE = '.data/skaffold-values.json';

/**
 * skaffold.yaml's local-podman profile against the real cluster, run from a copy of the repo (its
 * tracked and untracked, not ignored files), so a dev-loop change edits the copy, never the
 * worktree. skaffold runs inside the cluster's network namespace, where the API server and the
 * image registry listen; its podman builds run in this process's namespaces
 * (CATALOG_BUILD_NAMESPACES_OF, see scripts/images/skaffold-build.sh), where npm's registry
 * is reachable.
 */
export class ClusterSkaffold {
  readonly dir: string;
  private readonly binary = requireTool('skaffold');
  private readonly env: NodeJS.ProcessEnv;

  constructor(
    private readonly cluster: RealCluster,
    values: object,
  ) {
    this.dir = join(cluster.dir, 'repo');
    copyRepo(this.dir);
    mkdirSync(join(this.dir, dirname(VALUES_FILE)), { recursive: true });
    writeFileSync(join(this.dir, VALUES_FILE), JSON.stringify(values));
    const home = join(cluster.dir, 'skaffold-home');
    mkdirSync(home);
    this.env = {
      ...skaffoldEnvironment(home),
      KUBECONFIG: cluster.kubeconfig,
      CATALOG_VALUES_FILE: VALUES_FILE,
      CATALOG_BUILD_NAMESPACES_OF: String(process.pid),
    };
  }

  /** The flags every skaffold command here shares: profile, registry, a cache of this run's own. */
  private args(command: string, extra: string[]): string[] {
    return [
      command,
      '--profile',
      'local-podman',
      '--default-repo',
      NODE.registry.host,
      '--cache-file',
      join(this.cluster.dir, 'skaffold-home', 'cache'),
      ...extra,
    ];
  }

  run(command: string, extra: string[] = []): Promise<RunResult> {
    return run(...this.cluster.inNamespace(this.binary, this.args(command, extra)), { cwd: this.dir, env: this.env });
  }

  /** A long-running skaffold command (dev) in the background, its output in the cluster's logs. */
  start(command: string, extra: string[] = []): GroupProcess {
    const [ip, args] = this.cluster.inNamespace(this.binary, this.args(command, extra));
    return new GroupProcess(`skaffold ${command}`, ip, args, join(this.cluster.dir, 'logs', `skaffold-${command}.log`), {
      cwd: this.dir,
      env: { ...process.env, ...this.env },
    });
  }
}

function copyRepo(target: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO_ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file && existsSync(join(REPO_ROOT, file)));
  for (const file of files) {
    mkdirSync(join(target, dirname(file)), { recursive: true });
    cpSync(join(REPO_ROOT, file), join(target, file));
  }
}
