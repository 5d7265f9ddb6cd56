import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../../scripts/test/ports.js';
import { apiServerSecurityFlags, createClusterCertificates, type ClientName, type ClusterCertificates } from './certs.js';
import { GroupProcess, run, runOk } from '../../../scripts/test/process.js';
import { waitFor } from '../../../scripts/test/wait.js';
import { requireTool } from './tools.js';

const KWOK_STAGES = fileURLToPath(new URL('kwok-stages.yaml', import.meta.url));
const SERVICE_CIDR = '10.96.0.0/16';
/** Pod IPs kwok hands out; nothing ever listens on them (kwok pods have no containers). */
const POD_CIDR = '10.244.0.0/16';
/** Nodes kwok manages carry this annotation (kwok ignores any other node). */
const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';

export interface ClusterOptions {
  /** Simulated nodes. */
  nodes?: number;
  /** hostPath PersistentVolumes (no class) for PVCs to bind to; there is no provisioner. */
  persistentVolumes?: number;
}

/**
 * A real Kubernetes control plane on 127.0.0.1: etcd, kube-apiserver, kube-controller-manager,
 * kube-scheduler, and kwok simulating nodes and pod lifecycles (no containers ever run).
 */
export class TestCluster {
  readonly dir = mkdtempSync(join(tmpdir(), 'catalog-cluster-'));
  readonly kubeconfig = join(this.dir, 'admin.kubeconfig');
  /** kubectl's discovery cache, per cluster: a later cluster on a reused port must not read it. */
  private readonly kubectlCache = join(this.dir, 'kubectl-cache');
  private readonly processes: GroupProcess[] = [];
  private readonly kubectlBinary = requireTool('kubectl');

  private constructor() {}

  static async start(options: ClusterOptions = {}): Promise<TestCluster> {
    const cluster = new TestCluster();
    try {
      await cluster.boot(options.nodes ?? 2, options.persistentVolumes ?? 2);
      return cluster;
    } catch (error) {
      const logs = cluster.logTails();
      await cluster.stop();
      throw new Error(`test cluster did not start: ${(error as Error).message}\n${logs}`, { cause: error });
    }
  }

  private async boot(nodes: number, persistentVolumes: number): Promise<void> {
    const certs = await createClusterCertificates(this.dir);
    const [etcdClientPort, etcdPeerPort, apiPort, controllerManagerPort, schedulerPort] = await Promise.all(
      Array.from({ length: 5 }, () => freePort()),
    );
    const etcdUrl = `http://127.0.0.1:${etcdClientPort}`;
    const apiUrl = `https://127.0.0.1:${apiPort}`;

    this.launch('etcd', requireTool('etcd'), [
      '--name=test',
      `--data-dir=${join(this.dir, 'etcd')}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
      `--initial-cluster=test=http://127.0.0.1:${etcdPeerPort}`,
      // Throwaway data: no fsync keeps a 2-core machine responsive.
      '--unsafe-no-fsync',
      '--log-level=warn',
    ]);
    await waitFor(
      'etcd health',
      async () => {
        const response = await fetch(`${etcdUrl}/health`);
        return (await response.json()).health === 'true' ? true : undefined;
      },
      30_000,
    );

    this.launch('kube-apiserver', requireTool('kube-apiserver'), [
      `--etcd-servers=${etcdUrl}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      ...apiServerSecurityFlags(certs, SERVICE_CIDR),
      // On loopback the default reconciler refuses the advertise address.
      '--endpoint-reconciler-type=none',
      '--profiling=false',
    ]);
    for (const client of ['admin', 'controller-manager', 'scheduler', 'kwok'] as const) {
      this.writeKubeconfig(client, apiUrl, certs);
    }
    await waitFor(
      'kube-apiserver /readyz',
      async () => {
        const result = await this.kubectlResult(['get', '--raw=/readyz']);
        return result.code === 0 ? true : undefined;
      },
      60_000,
      500,
    );

    this.launch('kube-controller-manager', requireTool('kube-controller-manager'), [
      `--kubeconfig=${this.kubeconfigPath('controller-manager')}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${controllerManagerPort}`,
      '--leader-elect=false',
      '--controllers=*',
      `--service-account-private-key-file=${certs.serviceAccountKey}`,
      `--root-ca-file=${certs.ca.cert}`,
      '--use-service-account-credentials=true',
    ]);
    this.launch('kube-scheduler', requireTool('kube-scheduler'), [
      `--kubeconfig=${this.kubeconfigPath('scheduler')}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${schedulerPort}`,
      '--leader-elect=false',
    ]);
    this.launch('kwok', requireTool('kwok'), [
      `--kubeconfig=${this.kubeconfigPath('kwok')}`,
      '--manage-all-nodes=false',
      `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=fake`,
      `--config=${KWOK_STAGES}`,
      `--cidr=${POD_CIDR}`,
      '--node-ip=10.240.0.1',
    ]);

    await this.kubectl(['apply', '-f', '-'], this.fixtures(nodes, persistentVolumes));
    await this.kubectl(['wait', '--for=condition=Ready', 'node', '--all', '--timeout=60s']);
  }

  /** kwok Nodes and unclassed hostPath PersistentVolumes, as one YAML stream. */
  private fixtures(nodes: number, persistentVolumes: number): string {
    const nodeDocs = Array.from({ length: nodes }, (_, index) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: `kwok-node-${index}`,
        annotations: { [KWOK_NODE_ANNOTATION]: 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
        labels: {
          'kubernetes.io/hostname': `kwok-node-${index}`,
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          type: 'kwok',
        },
      },
    }));
    const volumeDocs = Array.from({ length: persistentVolumes }, (_, index) => ({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: `test-pv-${index}` },
      spec: {
        capacity: { storage: '20Gi' },
        accessModes: ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Retain',
        hostPath: { path: join(this.dir, `pv-${index}`) },
      },
    }));
    return JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [...nodeDocs, ...volumeDocs] });
  }

  private launch(name: string, binary: string, args: string[]): GroupProcess {
    mkdirSync(join(this.dir, 'logs'), { recursive: true });
    const process = new GroupProcess(name, binary, args, join(this.dir, 'logs', `${name}.log`));
    this.processes.push(process);
    return process;
  }

  private kubeconfigPath(client: ClientName): string {
    return client === 'admin' ? this.kubeconfig : join(this.dir, `${client}.kubeconfig`);
  }

  private writeKubeconfig(client: ClientName, server: string, certs: ClusterCertificates): void {
    const config = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'test', cluster: { server, 'certificate-authority': certs.ca.cert } }],
      users: [
        {
          name: client,
          user: { 'client-certificate': certs.clients[client].cert, 'client-key': certs.clients[client].key },
        },
      ],
      contexts: [{ name: 'test', context: { cluster: 'test', user: client } }],
      'current-context': 'test',
    };
    writeFileSync(this.kubeconfigPath(client), JSON.stringify(config));
  }

  kubectlResult(args: string[], input?: string) {
    return run(this.kubectlBinary, [`--kubeconfig=${this.kubeconfig}`, `--cache-dir=${this.kubectlCache}`, ...args], { input });
  }

  kubectl(args: string[], input?: string): Promise<string> {
    return runOk(this.kubectlBinary, [`--kubeconfig=${this.kubeconfig}`, `--cache-dir=${this.kubectlCache}`, ...args], { input });
  }

  /**
   * Waits until API discovery lists every resource (e.g. `servicemonitors.monitoring.coreos.com`).
   * A CRD reports Established before discovery serves it; a client that looks in between gets
   * "no matches for kind".
   */
  async waitForDiscovery(resources: string[]): Promise<void> {
    await waitFor(
      `API discovery of ${resources.join(', ')}`,
      async () => {
        const result = await this.kubectlResult(['api-resources', '-o', 'name']);
        const served = new Set(result.stdout.split('\n'));
        return result.code === 0 && resources.every((resource) => served.has(resource)) ? true : undefined;
      },
      60_000,
    );
  }

  /** `kubectl get … -o json`, parsed. */
  async getJson<T = any>(args: string[]): Promise<T> {
    return JSON.parse(await this.kubectl(['get', ...args, '-o', 'json'])) as T;
  }

  /** The last log lines of every control plane process (the API server's in full length). */
  logTails(): string {
    return this.processes.map((p) => p.logTail(p.name === 'kube-apiserver' ? 40 : 15)).join('\n');
  }

  /** Stops every process (process groups, SIGKILL after a grace period) and deletes the dir. */
  async stop(): Promise<void> {
    for (const process of [...this.processes].reverse()) await process.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
