import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiServerSecurityFlags, createClusterCertificates, type ClientName, type ClusterCertificates } from '../certs.js';
import { GroupProcess, runOk } from '../../../../scripts/test/process.js';
import { waitFor } from '../../../../scripts/test/wait.js';
import { requireTool } from '../tools.js';
import { removeNodeCgroups, writeCgroupMounts } from './cgroups.js';
import { recordHostState, restoreHostState, type HostSnapshot } from './host-state.js';
import { NetworkNamespace } from './netns.js';
import {
  addonManifests,
  cniConfig,
  containerdConfig,
  corefile,
  kubeletConfig,
  kubeProxyConfig,
  NODE,
  registryConfig,
  type NodeConfigPaths,
} from './node-config.js';

const NODE_SCRIPT = fileURLToPath(new URL('node.sh', import.meta.url));
/** Inside the namespace every port is ours: fixed ones keep the wiring readable. */
const API_URL = 'https://127.0.0.1:6443';
const ETCD_URL = 'http://127.0.0.1:2379';

export interface RealClusterOptions {
  /** images.json of the images to import (full reference → { archive }). */
  imagesManifest: string;
  /** Empty hostPath PersistentVolumes (no class) for PVCs to bind to. */
  persistentVolumes?: number;
  /** HPA sync period of the controller-manager (default 15 s upstream). */
  hpaSyncPeriod?: string;
  /**
   * An image registry (Debian's docker-registry) at NODE.registry inside the namespace: images
   * pushed there as localhost:5000/… are pulled by the node's containerd.
   */
  imageRegistry?: boolean;
}

/** Seconds each phase of start() took, for the report. */
export type StartTimings = Record<string, number>;

/**
 * A whole single-node Kubernetes cluster with real containers, inside a network namespace the
 * test creates: etcd, kube-apiserver, controller-manager, scheduler, containerd + runc, kubelet,
 * bridge CNI, kube-proxy (iptables), CoreDNS and metrics-server, each a process on the node
 * (only the workloads run as pods, from imported images), and optionally an image registry.
 * stop() removes everything, also after a failed start: processes, cgroups, the namespace with
 * its bridge, veths and iptables rules, and the host state kubelet touches.
 */
export class RealCluster {
  readonly runId = `catalog-test-${randomBytes(3).toString('hex')}`;
  readonly dir = mkdtempSync('/tmp/catalog-real-');
  readonly kubeconfig = join(this.dir, 'admin.kubeconfig');
  readonly netns = new NetworkNamespace(this.runId);
  readonly timings: StartTimings = {};
  private readonly processes: GroupProcess[] = [];
  private readonly otherLogs: string[] = [];
  private readonly kubectlBinary = requireTool('kubectl');
  private host?: HostSnapshot;
  private netnsCreated = false;
  private removed = false;
  private readonly onExit = () => this.removeAll();

  private constructor() {
    process.on('exit', this.onExit);
  }

  static async start(options: RealClusterOptions): Promise<RealCluster> {
    const cluster = new RealCluster();
    try {
      await cluster.boot(options);
      return cluster;
    } catch (error) {
      const logs = cluster.logTails();
      await cluster.stop();
      throw new Error(`real cluster did not start: ${(error as Error).message}\n${logs}`, { cause: error });
    }
  }

  private async phase(name: string, work: () => Promise<void>): Promise<void> {
    const started = Date.now();
    await work();
    this.timings[name] = (Date.now() - started) / 1000;
  }

  private async boot(options: RealClusterOptions): Promise<void> {
    const names = [
      'etcd',
      'kube-apiserver',
      'kube-controller-manager',
      'kube-scheduler',
      'kubelet',
      'kube-proxy',
      'coredns',
      'metrics-server',
    ] as const;
    const binaries = Object.fromEntries(names.map((name) => [name, requireTool(name)])) as Record<(typeof names)[number], string>;
    mkdirSync(join(this.dir, 'logs'));
    const certs = await createClusterCertificates(this.dir);
    for (const client of ['admin', 'controller-manager', 'scheduler'] as const) this.writeKubeconfig(client, certs);
    const paths: NodeConfigPaths = { dir: this.dir, caCert: certs.ca.cert, kubeconfig: this.kubeconfig, runId: this.runId };

    this.host = recordHostState();
    await this.phase('network namespace', async () => {
      this.netnsCreated = true;
      await this.netns.create(NODE.bridge, `${NODE.ip}/24`, NODE.serviceCidr);
    });

    await this.phase('control plane', async () => {
      this.launch('etcd', binaries.etcd, [
        '--name=node',
        `--data-dir=${join(this.dir, 'etcd')}`,
        `--listen-client-urls=${ETCD_URL}`,
        `--advertise-client-urls=${ETCD_URL}`,
        '--listen-peer-urls=http://127.0.0.1:2380',
        '--initial-advertise-peer-urls=http://127.0.0.1:2380',
        '--initial-cluster=node=http://127.0.0.1:2380',
        // Throwaway data: no fsync keeps a 2-core machine responsive.
        '--unsafe-no-fsync',
        '--log-level=warn',
      ]);
      await waitFor(
        'etcd health',
        async () => {
          const health = await this.netns.run('curl', ['-sf', `${ETCD_URL}/health`]);
          return health.code === 0 && JSON.parse(health.stdout).health === 'true' ? true : undefined;
        },
        30_000,
      );
      this.launch('kube-apiserver', binaries['kube-apiserver'], [
        `--etcd-servers=${ETCD_URL}`,
        '--bind-address=0.0.0.0',
        `--advertise-address=${NODE.ip}`,
        '--secure-port=6443',
        ...apiServerSecurityFlags(certs, NODE.serviceCidr),
        // logs and exec reach the kubelet as an admin, at its address (its name resolves nowhere).
        `--kubelet-client-certificate=${certs.clients.admin.cert}`,
        `--kubelet-client-key=${certs.clients.admin.key}`,
        '--kubelet-preferred-address-types=InternalIP',
        // The aggregation layer (metrics.k8s.io): the API server proxies with the front-proxy
        // identity and, with aggregator routing, straight to the Endpoints' address.
        `--requestheader-client-ca-file=${certs.ca.cert}`,
        '--requestheader-allowed-names=front-proxy-client',
        '--requestheader-username-headers=X-Remote-User',
        '--requestheader-group-headers=X-Remote-Group',
        '--requestheader-extra-headers-prefix=X-Remote-Extra-',
        `--proxy-client-cert-file=${certs.clients['front-proxy'].cert}`,
        `--proxy-client-key-file=${certs.clients['front-proxy'].key}`,
        '--enable-aggregator-routing=true',
        '--profiling=false',
      ]);
      await waitFor(
        'kube-apiserver /readyz',
        async () => ((await this.kubectlResult(['get', '--raw=/readyz'])).code === 0 ? true : undefined),
        60_000,
        500,
      );
      this.launch('kube-controller-manager', binaries['kube-controller-manager'], [
        `--kubeconfig=${this.kubeconfigPath('controller-manager')}`,
        '--bind-address=127.0.0.1',
        '--leader-elect=false',
        '--controllers=*',
        `--service-account-private-key-file=${certs.serviceAccountKey}`,
        `--root-ca-file=${certs.ca.cert}`,
        '--use-service-account-credentials=true',
        `--horizontal-pod-autoscaler-sync-period=${options.hpaSyncPeriod ?? '5s'}`,
      ]);
      this.launch('kube-scheduler', binaries['kube-scheduler'], [
        `--kubeconfig=${this.kubeconfigPath('scheduler')}`,
        '--bind-address=127.0.0.1',
        '--leader-elect=false',
      ]);
    });

    await this.phase('containerd + kubelet', async () => {
      containerdConfig(paths);
      cniConfig(paths);
      kubeletConfig(paths);
      writeCgroupMounts(join(this.dir, 'cgroup-mounts'));
      const [ip, args] = this.netns.exec('bash', [NODE_SCRIPT, this.dir, this.runId]);
      this.processes.push(
        new GroupProcess('node', ip, args, join(this.dir, 'logs', 'node.log'), {
          env: { ...process.env, KUBELET: binaries.kubelet, NODE_NAME: NODE.name, NODE_IP: NODE.ip },
        }),
      );
      // node.sh starts these two; their logs are shown beside the processes' own.
      this.otherLogs.push('containerd', 'kubelet');
    });

    await this.phase('image import', () => this.importImages(options.imagesManifest));
    if (options.imageRegistry) {
      await this.phase('image registry', async () => {
        this.launch('registry', 'docker-registry', ['serve', registryConfig(paths)]);
        await waitFor(
          'the image registry',
          async () => ((await this.netns.run('curl', ['-sf', `http://${NODE.registry.listen}/v2/`])).code === 0 ? true : undefined),
          30_000,
          500,
        );
      });
    }

    await this.phase('node add-ons', async () => {
      this.launch('kube-proxy', binaries['kube-proxy'], [`--config=${kubeProxyConfig(paths)}`]);
      this.launch('coredns', binaries.coredns, ['-conf', corefile(paths)]);
      this.launch('metrics-server', binaries['metrics-server'], [
        `--secure-port=${NODE.metricsServerPort}`,
        `--bind-address=${NODE.ip}`,
        `--cert-dir=${join(this.dir, 'metrics-server')}`,
        `--kubeconfig=${this.kubeconfig}`,
        `--authentication-kubeconfig=${this.kubeconfig}`,
        `--authorization-kubeconfig=${this.kubeconfig}`,
        '--kubelet-insecure-tls',
        '--kubelet-preferred-address-types=InternalIP',
        // The shortest resolution it accepts must exceed the kubelet request timeout.
        '--metric-resolution=10s',
        '--kubelet-request-timeout=5s',
      ]);
      const volumeDirs = Array.from({ length: options.persistentVolumes ?? 1 }, (_, index) => {
        const path = join(this.dir, 'volumes', `pv-${index}`);
        mkdirSync(path, { recursive: true });
        // hostPath volumes are not chowned for fsGroup: images running as any uid may write.
        chmodSync(path, 0o777);
        return path;
      });
      await this.kubectl(['apply', '-f', '-'], addonManifests(volumeDirs));
      await this.kubectl(['wait', '--for=condition=Ready', `node/${NODE.name}`, '--timeout=90s']);
      await this.kubectl(['wait', '--for=condition=Available', 'apiservice/v1beta1.metrics.k8s.io', '--timeout=90s']);
    });
  }

  /** `ctr` against the node's containerd, in its Kubernetes namespace. */
  private ctr(args: string[]): Promise<string> {
    return runOk('ctr', ['--address', join(this.dir, 'containerd/containerd.sock'), '-n', 'k8s.io', ...args]);
  }

  /** Imports every OCI archive named in images.json into containerd's Kubernetes namespace. */
  private async importImages(manifestPath: string): Promise<void> {
    await waitFor(
      'containerd',
      async () =>
        (await this.netns.run('ctr', ['--address', join(this.dir, 'containerd/containerd.sock'), 'version'])).code === 0 ? true : undefined,
      30_000,
    );
    const images: Record<string, { archive: string }> = JSON.parse(readFileSync(manifestPath, 'utf8'));
    for (const { archive } of Object.values(images)) await this.ctr(['images', 'import', archive]);
  }

  /**
   * Gives an image on the node a second reference (full names, e.g. docker.io/library/x:1): an
   * image bump the kubelet resolves locally, as after a push of a new tag.
   */
  async tagImage(existing: string, added: string): Promise<void> {
    await this.ctr(['images', 'tag', '--force', existing, added]);
  }

  private launch(name: string, binary: string, args: string[]): GroupProcess {
    const [ip, ipArgs] = this.netns.exec(binary, args);
    const process = new GroupProcess(name, ip, ipArgs, join(this.dir, 'logs', `${name}.log`));
    this.processes.push(process);
    return process;
  }

  private kubeconfigPath(client: ClientName): string {
    return client === 'admin' ? this.kubeconfig : join(this.dir, `${client}.kubeconfig`);
  }

  private writeKubeconfig(client: ClientName, certs: ClusterCertificates): void {
    writeFileSync(
      this.kubeconfigPath(client),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'test', cluster: { server: API_URL, 'certificate-authority': certs.ca.cert } }],
        users: [{ name: client, user: { 'client-certificate': certs.clients[client].cert, 'client-key': certs.clients[client].key } }],
        contexts: [{ name: 'test', context: { cluster: 'test', user: client } }],
        'current-context': 'test',
      }),
    );
  }

  /** Wraps a command line to run inside the cluster's network namespace. */
  readonly inNamespace = (command: string, args: string[]): [string, string[]] => this.netns.exec(command, args);

  kubectlResult(args: string[], input?: string) {
    return this.netns.run(this.kubectlBinary, [`--kubeconfig=${this.kubeconfig}`, ...args], input);
  }

  kubectl(args: string[], input?: string): Promise<string> {
    return this.netns.runOk(this.kubectlBinary, [`--kubeconfig=${this.kubeconfig}`, ...args], input);
  }

  /** `kubectl get … -o json`, parsed. */
  async getJson<T = any>(args: string[]): Promise<T> {
    return JSON.parse(await this.kubectl(['get', ...args, '-o', 'json'])) as T;
  }

  /** The last log lines of every node process. */
  logTails(lines = 15): string {
    const others = this.otherLogs.map((name) => {
      const file = join(this.dir, 'logs', `${name}.log`);
      const text = existsSync(file) ? readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n') : '';
      return `--- ${name}, last ${lines} lines of ${file}\n${text}`;
    });
    return [...this.processes.map((p) => p.logTail(lines)), ...others].join('\n');
  }

  /** Stops the node's processes (gracefully first), then removes everything else. */
  async stop(): Promise<void> {
    for (const process of [...this.processes].reverse()) await process.stop();
    this.removeAll();
  }

  /**
   * Everything but the graceful stop, synchronously: also run on process exit, so a test run
   * interrupted by a signal (whose handler kills the process groups and exits) still leaves no
   * shims, containers, cgroups, namespace or host changes behind.
   */
  private removeAll(): void {
    if (this.removed) return;
    this.removed = true;
    process.off('exit', this.onExit);
    const errors: unknown[] = [];
    const attempt = (work: () => void) => {
      try {
        work();
      } catch (error) {
        errors.push(error);
      }
    };
    if (this.netnsCreated) attempt(() => this.netns.delete());
    attempt(() => removeNodeCgroups(this.runId));
    if (this.host) attempt(() => restoreHostState(this.host!, this.runId, this.dir));
    attempt(() => rmSync(this.dir, { recursive: true, force: true }));
    if (errors.length > 0) throw new AggregateError(errors, 'real cluster teardown was incomplete');
  }
}
