import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Addresses and names of the single node, all inside the test's network namespace. */
export const NODE = {
  name: 'catalog-node',
  bridge: 'cni0',
  /** The bridge's address: the node's InternalIP, the API server's advertise address. */
  ip: '10.244.0.1',
  podSubnet: '10.244.0.0/24',
  serviceCidr: '10.96.0.0/16',
  clusterDnsIp: '10.96.0.10',
  clusterDomain: 'cluster.local',
  /** The pod sandbox: built locally (no registry), named like the upstream one. */
  sandboxImage: 'registry.k8s.io/pause:3.10.1',
  metricsServerPort: 4443,
  /** The image registry (optional): on the namespace's loopback, where skaffold pushes and containerd pulls. */
  registry: { host: 'localhost:5000', listen: '127.0.0.1:5000' },
} as const;

export interface NodeConfigPaths {
  dir: string;
  caCert: string;
  kubeconfig: string;
  /** Unique per run: CNI network name (its cache files carry it) and kubelet's cgroup root. */
  runId: string;
}

function write(path: string, text: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/**
 * containerd 1.6 with only the CRI plugin's needs: runc with cgroupfs (the host's cgroups are
 * hybrid v1/v2: crun refuses them, systemd does not run), overlayfs, our local pause image, and
 * every path (root, state, socket, runc root, pod netns files) under the cluster's dir.
 */
export function containerdConfig({ dir }: NodeConfigPaths): string {
  const root = join(dir, 'containerd');
  return write(
    join(root, 'config.toml'),
    `version = 2
root = "${root}/root"
state = "${root}/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = "${root}/containerd.sock"
[ttrpc]
  address = "${root}/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "${root}/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${NODE.sandboxImage}"
  disable_apparmor = true
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "${root}/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "${dir}/cni/net.d"
  # The loopback registry speaks plain HTTP.
  [plugins."io.containerd.grpc.v1.cri".registry.mirrors."${NODE.registry.host}"]
    endpoint = ["http://${NODE.registry.listen}"]
`,
  );
}

/** Debian's docker-registry (distribution 2.8) on the namespace's loopback, storage under the cluster's dir. */
export function registryConfig({ dir }: NodeConfigPaths): string {
  return write(
    join(dir, 'registry/config.yml'),
    JSON.stringify({
      version: '0.1',
      log: { level: 'warn' },
      storage: { filesystem: { rootdirectory: join(dir, 'registry/data') }, delete: { enabled: true } },
      http: { addr: NODE.registry.listen },
    }),
  );
}

/**
 * Bridge CNI on the namespace's bridge (created beforehand with the node's address, which the
 * plugin keeps as the gateway), host-local addresses stored under the cluster's dir.
 */
export function cniConfig({ dir, runId }: NodeConfigPaths): string {
  return write(
    join(dir, 'cni/net.d/10-bridge.conflist'),
    JSON.stringify({
      cniVersion: '1.0.0',
      name: runId,
      plugins: [
        {
          type: 'bridge',
          bridge: NODE.bridge,
          isGateway: true,
          ipMasq: false,
          // A pod reaching itself through its Service comes back over the same port.
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            dataDir: join(dir, 'cni/ipam'),
            ranges: [[{ subnet: NODE.podSubnet, gateway: NODE.ip }]],
            routes: [{ dst: '0.0.0.0/0' }],
          },
        },
        { type: 'portmap', capabilities: { portMappings: true } },
      ],
    }),
  );
}

export function kubeletConfig({ dir, caCert, runId }: NodeConfigPaths): string {
  return write(
    join(dir, 'kubelet/config.yaml'),
    JSON.stringify({
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      kind: 'KubeletConfiguration',
      // The host's cgroups are v1 (hybrid): kubelet 1.35 refuses them unless told.
      failCgroupV1: false,
      cgroupDriver: 'cgroupfs',
      // Pods' cgroups under a root of this run only, so teardown finds and removes all of them.
      cgroupRoot: `/${runId}`,
      containerRuntimeEndpoint: `unix://${join(dir, 'containerd/containerd.sock')}`,
      // Container logs under the cluster's dir (/var/log/containers still gets symlinks to them).
      podLogsDir: join(dir, 'pod-logs'),
      address: NODE.ip,
      readOnlyPort: 0,
      healthzBindAddress: '127.0.0.1',
      authentication: { anonymous: { enabled: false }, webhook: { enabled: false }, x509: { clientCAFile: caCert } },
      authorization: { mode: 'AlwaysAllow' },
      clusterDNS: [NODE.clusterDnsIp],
      clusterDomain: NODE.clusterDomain,
      resolvConf: '',
      failSwapOn: false,
      // A shared, busy build machine: no evictions for disk or memory pressure mid-test, and no
      // image garbage collection (the images were imported, nothing could pull them back).
      evictionHard: { 'memory.available': '1%', 'nodefs.available': '1%', 'imagefs.available': '1%', 'nodefs.inodesFree': '1%' },
      imageGCHighThresholdPercent: 100,
      imageGCLowThresholdPercent: 99,
      serializeImagePulls: false,
      rotateCertificates: false,
    }),
  );
}

export function kubeProxyConfig({ dir, kubeconfig }: NodeConfigPaths): string {
  return write(
    join(dir, 'kube-proxy/config.yaml'),
    JSON.stringify({
      apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
      kind: 'KubeProxyConfiguration',
      mode: 'iptables',
      clientConnection: { kubeconfig },
      hostnameOverride: NODE.name,
      clusterCIDR: NODE.podSubnet,
      // Pod → Service → pod on the same bridge: replies must come back through the node to be
      // un-NATed, without relying on br_netfilter.
      iptables: { masqueradeAll: true },
      // Leave the host-wide conntrack table size and timeouts alone.
      conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: '0s', tcpCloseWaitTimeout: '0s' },
      metricsBindAddress: '127.0.0.1:10249',
      healthzBindAddress: '127.0.0.1:10256',
    }),
  );
}

/** Cluster DNS served from the node's address (the kube-dns Service points at it). */
export function corefile({ dir, kubeconfig }: NodeConfigPaths): string {
  return write(
    join(dir, 'coredns/Corefile'),
    `.:53 {
    bind ${NODE.ip}
    errors
    kubernetes ${NODE.clusterDomain} in-addr.arpa ip6.arpa {
        kubeconfig ${kubeconfig} test
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    cache 5
}
`,
  );
}

/**
 * What ties the processes on the node's address into the cluster: the kube-dns and
 * metrics-server Services without selectors, their Endpoints on the node, the metrics API
 * registration, and unclassed hostPath PersistentVolumes for PVCs (there is no provisioner).
 */
export function addonManifests(volumeDirs: string[]): string {
  const nodeService = (name: string, clusterIP: string | undefined, ports: object[]) => [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: 'kube-system', labels: { 'k8s-app': name } },
      spec: { ...(clusterIP ? { clusterIP } : {}), ports },
    },
    {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name, namespace: 'kube-system' },
      subsets: [
        {
          addresses: [{ ip: NODE.ip }],
          ports: ports.map((port: any) => ({ name: port.name, port: port.targetPort, protocol: port.protocol })),
        },
      ],
    },
  ];
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      ...nodeService('kube-dns', NODE.clusterDnsIp, [
        { name: 'dns', port: 53, targetPort: 53, protocol: 'UDP' },
        { name: 'dns-tcp', port: 53, targetPort: 53, protocol: 'TCP' },
      ]),
      ...nodeService('metrics-server', undefined, [{ name: 'https', port: 443, targetPort: NODE.metricsServerPort, protocol: 'TCP' }]),
      {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name: 'v1beta1.metrics.k8s.io' },
        spec: {
          service: { name: 'metrics-server', namespace: 'kube-system', port: 443 },
          group: 'metrics.k8s.io',
          version: 'v1beta1',
          // metrics-server serves a self-signed certificate of its own.
          insecureSkipTLSVerify: true,
          groupPriorityMinimum: 100,
          versionPriority: 100,
        },
      },
      ...volumeDirs.map((path, index) => ({
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: `node-pv-${index}` },
        spec: {
          capacity: { storage: '20Gi' },
          accessModes: ['ReadWriteOnce'],
          persistentVolumeReclaimPolicy: 'Retain',
          hostPath: { path, type: 'Directory' },
        },
      })),
    ],
  });
}
