// The chart in clusters that already run their own database, monitoring and ingress: the value
// sets under charts/catalog-gateway/ci/ render, validate offline and are accepted by a real API
// server; the chart works as a subchart; the README's example is one of the tested files.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { TestCluster } from './support/cluster.js';
import { CHART_DIR, Helm, NAMESPACE, findManifest, parseManifests, type Manifest } from './support/chart.js';
import { kubeconform, prepareOfflineSchemas } from './support/schemas.js';
import { requireTool } from './support/tools.js';
import { createNamespace } from './support/namespace.js';

const CI_DIR = join(CHART_DIR, 'ci');
const VALUE_FILES = readdirSync(CI_DIR)
  .filter((file) => file.endsWith('-values.yaml'))
  .sort();
/** Kinds from CRDs (Prometheus Operator, Gateway API): no offline schema; the API server gets stand-in CRDs. */
const CRD_KINDS = new Set(['ServiceMonitor', 'PrometheusRule', 'HTTPRoute']);

const helm = new Helm();
const scratch = mkdtempSync(join(tmpdir(), 'catalog-chart-adoption-'));
const rendered = new Map<string, Manifest[]>();
const renderedText = new Map<string, string>();
let schemaLocation: string;

before(async () => {
  schemaLocation = await prepareOfflineSchemas(join(scratch, 'schemas'));
  for (const file of VALUE_FILES) {
    const text = await helm.template({}, ['-f', join(CI_DIR, file)]);
    renderedText.set(file, text);
    rendered.set(file, parseManifests(text));
  }
});
after(() => helm.cleanup());

const container = (manifest: Manifest, name: string) =>
  (manifest as any).spec.template.spec.containers.find((candidate: { name: string }) => candidate.name === name);

describe('value sets for clusters with their own database, monitoring and ingress', () => {
  for (const file of VALUE_FILES) {
    test(`kubeconform -strict accepts every built-in object: ${file}`, async () => {
      const builtIn = rendered.get(file)!.filter((manifest) => !CRD_KINDS.has(manifest.kind));
      const summary = await kubeconform(builtIn.map((manifest) => JSON.stringify(manifest)).join('\n---\n'), schemaLocation);
      assert.match(summary, new RegExp(`Valid: ${builtIn.length}, Invalid: 0, Errors: 0, Skipped: 0`));
    });
  }

  test('bring your own: no database, Redis, Prometheus or Grafana of the chart; ServiceMonitor, PrometheusRule, sidecar dashboard and a TLS Ingress instead', () => {
    const manifests = rendered.get('bring-your-own-values.yaml')!;
    const kinds = manifests.map((manifest) => `${manifest.kind}/${manifest.metadata.name}`);
    for (const absent of ['postgresql', 'redis', 'prometheus', 'grafana', 'kube-state-metrics']) {
      assert.ok(!kinds.some((kind) => /^(StatefulSet|Deployment)\//.test(kind) && kind.endsWith(`-${absent}`)), `no ${absent} workload`);
    }
    const rule = findManifest(manifests, 'PrometheusRule', '-gateway') as any;
    const rulesFile = parse(readFileSync(join(CHART_DIR, 'files/dashboards/prometheus-rules.yml'), 'utf8'));
    assert.deepEqual(rule.spec.groups, rulesFile.groups, "the same rules the chart's own Prometheus loads");
    assert.equal(rule.metadata.labels.release, 'kube-prometheus-stack');
    const dashboards = findManifest(manifests, 'ConfigMap', '-dashboards') as any;
    assert.equal(dashboards.metadata.labels.grafana_dashboard, '1');
    assert.deepEqual(
      JSON.parse(dashboards.data['catalog-gateway.json']),
      JSON.parse(readFileSync(join(CHART_DIR, 'files/dashboards/catalog-gateway.json'), 'utf8')),
    );
    const ingress = findManifest(manifests, 'Ingress', '-gateway') as any;
    assert.equal(ingress.metadata.annotations['cert-manager.io/cluster-issuer'], 'letsencrypt');
    assert.deepEqual(ingress.spec.tls, [{ secretName: 'catalog-gateway-tls', hosts: ['catalog.example.com'] }]);
    assert.equal(ingress.spec.rules[0].http.paths[0].backend.service.port.name, 'http');
    const gateway = container(findManifest(manifests, 'Deployment', '-gateway'), 'gateway');
    const fromSecrets = Object.fromEntries(gateway.env.map((env: any) => [env.name, env.valueFrom?.secretKeyRef?.name]));
    assert.deepEqual([fromSecrets.DATABASE_URL, fromSecrets.REDIS_URL], ['catalog-database', 'catalog-redis']);
  });

  test('extensions: extra env, envFrom, volumes and a sidecar on the gateway and the loader; scheduling on every workload; Grafana admin from a Secret; an HTTPRoute', () => {
    const manifests = rendered.get('extensions-values.yaml')!;
    const deployment = findManifest(manifests, 'Deployment', '-gateway') as any;
    const gateway = container(deployment, 'gateway');
    assert.ok(gateway.env.some((env: any) => env.name === 'NODE_OPTIONS'));
    assert.ok(gateway.envFrom.some((source: any) => source.secretRef?.name === 'catalog-extra-env'));
    assert.ok(gateway.volumeMounts.some((mount: any) => mount.mountPath === '/etc/catalog/certs'));
    assert.ok(deployment.spec.template.spec.volumes.some((volume: any) => volume.name === 'certs'));
    assert.ok(container(deployment, 'log-shipper'), 'the sidecar runs beside the gateway');
    const job = findManifest(manifests, 'Job', '-loader') as any;
    assert.ok(container(job, 'load').env.some((env: any) => env.name === 'LOG_LEVEL' && env.value === 'debug'));
    assert.equal(job.spec.template.spec.priorityClassName, 'batch-low');
    assert.equal((findManifest(manifests, 'StatefulSet', '-postgresql') as any).spec.template.spec.nodeSelector.disktype, 'ssd');
    assert.equal((findManifest(manifests, 'Deployment', '-redis') as any).spec.template.spec.tolerations[0].value, 'cache');
    for (const component of ['-prometheus', '-kube-state-metrics', '-grafana']) {
      assert.equal((findManifest(manifests, 'Deployment', component) as any).spec.template.spec.nodeSelector.pool, 'monitoring', component);
    }
    const grafana = container(findManifest(manifests, 'Deployment', '-grafana'), 'grafana');
    assert.equal(grafana.env.find((env: any) => env.name === 'GF_SECURITY_ADMIN_PASSWORD').valueFrom.secretKeyRef.name, 'grafana-admin');
    assert.ok(
      !manifests.some((manifest) => manifest.kind === 'Secret' && manifest.metadata.name.endsWith('-grafana')),
      'no chart-made admin Secret',
    );
    const route = findManifest(manifests, 'HTTPRoute', '-gateway') as any;
    assert.deepEqual(route.spec.parentRefs, [{ name: 'public', namespace: 'gateway-system' }]);
    assert.equal(route.spec.rules[0].backendRefs[0].port, 4000);
  });

  test('OpenShift profile: no pod asks for a uid, gid or fsGroup; containers keep the restricted settings', () => {
    const pods = rendered
      .get('openshift-values.yaml')!
      .flatMap((manifest: any) =>
        manifest.spec?.template?.spec ? [manifest.spec.template.spec] : manifest.kind === 'Pod' ? [manifest.spec] : [],
      );
    assert.ok(pods.length >= 7);
    for (const pod of pods) {
      assert.deepEqual(Object.keys(pod.securityContext).sort(), ['runAsNonRoot', 'seccompProfile']);
      for (const each of [...(pod.initContainers ?? []), ...pod.containers]) {
        assert.equal(each.securityContext.runAsUser, undefined);
        assert.equal(each.securityContext.readOnlyRootFilesystem, true);
      }
    }
  });

  test("the chart README's bring-your-own example is the tested value file, verbatim", () => {
    const readme = readFileSync(join(CHART_DIR, 'README.md'), 'utf8');
    assert.ok(
      readme.includes(readFileSync(join(CI_DIR, 'bring-your-own-values.yaml'), 'utf8')),
      'README holds ci/bring-your-own-values.yaml',
    );
  });
});

describe('as a subchart of an umbrella chart', () => {
  test('helm template of an umbrella that depends on this chart, with global values, renders the gateway', async () => {
    const umbrella = join(scratch, 'umbrella');
    mkdirSync(join(umbrella, 'charts'), { recursive: true });
    cpSync(CHART_DIR, join(umbrella, 'charts/catalog-gateway'), { recursive: true, dereference: true });
    writeFileSync(
      join(umbrella, 'Chart.yaml'),
      [
        'apiVersion: v2',
        'name: shop-platform',
        'version: 0.1.0',
        'dependencies:',
        '  - name: catalog-gateway',
        '    version: ">=0.0.0"',
        '    condition: catalog-gateway.enabled',
      ].join('\n'),
    );
    writeFileSync(
      join(umbrella, 'values.yaml'),
      [
        'global:',
        '  imageRegistry: registry.example.internal',
        '  storageClass: fast',
        'catalog-gateway:',
        '  enabled: true',
        '  gateway:',
        '    replicas: 3',
        '    autoscaling:',
        '      enabled: false',
        // A render without a cluster makes up no passwords: they come from Secrets here.
        '  postgresql:',
        '    auth:',
        '      existingSecret: catalog-postgresql',
        '  redis:',
        '    auth:',
        '      existingSecret: catalog-redis',
      ].join('\n'),
    );
    const text = execFileSync(requireTool('helm'), ['template', 'shop', umbrella, '--namespace', NAMESPACE], { encoding: 'utf8' });
    const deployment = findManifest(parseManifests(text), 'Deployment', '-gateway') as any;
    assert.equal(deployment.spec.replicas, 3);
  });
});

describe('a real API server accepts every value set (with stand-in CRDs for ServiceMonitor, PrometheusRule, HTTPRoute)', () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await TestCluster.start({ nodes: 1, persistentVolumes: 0 });
    const crd = (group: string, kind: string, plural: string, version: string) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      // *.k8s.io groups are protected: a stand-in declares itself unapproved.
      metadata: { name: `${plural}.${group}`, annotations: { 'api-approved.kubernetes.io': 'unapproved, test stand-in' } },
      spec: {
        group,
        scope: 'Namespaced',
        names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
        versions: [
          {
            name: version,
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
    const crds = [
      crd('monitoring.coreos.com', 'ServiceMonitor', 'servicemonitors', 'v1'),
      crd('monitoring.coreos.com', 'PrometheusRule', 'prometheusrules', 'v1'),
      crd('gateway.networking.k8s.io', 'HTTPRoute', 'httproutes', 'v1'),
    ];
    await cluster.kubectl(['apply', '-f', '-'], crds.map((each) => JSON.stringify(each)).join('\n---\n'));
    await cluster.kubectl(['wait', '--for=condition=Established', '--timeout=60s', ...crds.map((each) => `crd/${each.metadata.name}`)]);
    await cluster.waitForDiscovery(crds.map((each) => each.metadata.name));
    await createNamespace(cluster, NAMESPACE);
  });
  after(async () => {
    await cluster?.stop();
  });

  for (const file of VALUE_FILES) {
    test(`kubectl apply --dry-run=server accepts ${file}`, async () => {
      const output = await cluster.kubectl(['apply', '--dry-run=server', '-n', NAMESPACE, '-f', '-'], renderedText.get(file)!);
      assert.match(output, /deployment.apps\/shop-catalog-gateway-gateway created \(server dry run\)/);
      for (const kind of CRD_KINDS) {
        if (rendered.get(file)!.some((manifest) => manifest.kind === kind))
          assert.match(output, new RegExp(`${kind.toLowerCase()}.*created \\(server dry run\\)`, 'i'));
      }
    });
  }
});
