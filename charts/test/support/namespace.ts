import type { RunResult } from '../../../scripts/test/process.js';
import { waitFor } from '../../../scripts/test/wait.js';

interface KubectlRunner {
  kubectl(args: string[], input?: string): Promise<string>;
  kubectlResult(args: string[], input?: string): Promise<RunResult>;
}

/**
 * Creates a namespace and waits for its "default" ServiceAccount. Until the controller-manager
 * has made it, the API server refuses pods that use it ("error looking up service account"); its
 * own retry lasts about a second, which a busy 2-core machine can outrun.
 */
export async function createNamespace(cluster: KubectlRunner, name: string): Promise<void> {
  await cluster.kubectl(['create', 'namespace', name]);
  await waitFor(
    `the default ServiceAccount of ${name}`,
    async () => ((await cluster.kubectlResult(['get', 'serviceaccount', 'default', '-n', name])).code === 0 ? true : undefined),
    30_000,
  );
}
