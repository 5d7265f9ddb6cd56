// Metrics off the public port, traces to Jaeger (in the chart) or the cluster's collector,
// exemplars from Prometheus to Grafana to the trace, rendered; promtool checks the Prometheus
// configuration with exemplar storage and OpenMetrics scraping.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { findManifest, Helm, parseManifests, VALUE_SETS, type Manifest } from './support/chart.js';
import { runOk } from '../../scripts/test/process.js';
import { requireTool } from './support/tools.js';

const helm = new Helm();
const scratch = mkdtempSync(join(tmpdir(), 'catalog-chart-observability-'));
let defaults: Manifest[];
let jaeger: Manifest[];
let collector: Manifest[];

before(async () => {
  defaults = parseManifests(await helm.template({}));
  jaeger = parseManifests(await helm.template(VALUE_SETS['read replicas, Redis Sentinel, Jaeger']!));
  collector = parseManifests(await helm.template(VALUE_SETS['external CloudNativePG, Redis Sentinels and OTLP collector']!));
});
after(() => {
  helm.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

const gatewayContainer = (manifests: Manifest[]) =>
  (findManifest(manifests, 'Deployment', '-gateway') as any).spec.template.spec.containers[0];
const gatewayEnv = (manifests: Manifest[]): Record<string, string> =>
  Object.fromEntries(
    gatewayContainer(manifests)
      .env.filter((e: any) => 'value' in e)
      .map((e: any) => [e.name, e.value]),
  );
const prometheusConfig = (manifests: Manifest[]) =>
  parseYaml((findManifest(manifests, 'ConfigMap', '-prometheus') as any).data['prometheus.yml']);
const datasources = (manifests: Manifest[]) =>
  parseYaml((findManifest(manifests, 'ConfigMap', '-grafana-datasources') as any).data['datasources.yaml']).datasources;

describe('/metrics off the public port', () => {
  test('the gateway container declares a metrics port (9464) apart from http; the public Service publishes http only', () => {
    const ports = gatewayContainer(defaults).ports.map((p: any) => [p.name, p.containerPort]);
    assert.deepEqual(ports, [
      ['http', 4000],
      ['metrics', 9464],
    ]);
    const service = findManifest(defaults, 'Service', '-gateway') as any;
    assert.deepEqual(
      service.spec.ports.map((p: any) => p.targetPort),
      ['http'],
    );
  });

  test("the chart's Prometheus scrapes each gateway pod's metrics port, found by pod discovery, OpenMetrics first", () => {
    const job = prometheusConfig(defaults).scrape_configs.find((j: any) => j.job_name === 'catalog-gateway');
    const keep = job.relabel_configs.find((r: any) => r.source_labels[0] === '__meta_kubernetes_pod_container_port_name');
    assert.deepEqual([keep.regex, keep.action], ['metrics', 'keep']);
    assert.equal(job.kubernetes_sd_configs[0].role, 'pod');
    assert.equal(job.scrape_protocols[0], 'OpenMetricsText1.0.0');
  });

  test('the ServiceMonitor scrapes a headless metrics Service, the only Service with the metrics port', async () => {
    const manifests = parseManifests(await helm.template({ serviceMonitor: { enabled: true } }));
    const monitor = findManifest(manifests, 'ServiceMonitor', '-gateway') as any;
    assert.equal(monitor.spec.endpoints[0].port, 'metrics');
    const services = manifests.filter((m: any) => m.kind === 'Service' && m.metadata.name.startsWith('shop-catalog-gateway-gateway'));
    const withMetrics = services.filter((s: any) => s.spec.ports.some((p: any) => p.name === 'metrics'));
    assert.deepEqual(
      withMetrics.map((s: any) => s.metadata.name),
      ['shop-catalog-gateway-gateway-metrics'],
    );
    const metrics = withMetrics[0] as any;
    assert.equal(metrics.spec.clusterIP, 'None');
    assert.deepEqual(metrics.spec.ports, [{ name: 'metrics', port: 9464, targetPort: 'metrics', protocol: 'TCP' }]);
    for (const [key, value] of Object.entries(monitor.spec.selector.matchLabels)) assert.equal(metrics.metadata.labels[key], value);
    assert.equal(metrics.metadata.labels[monitor.spec.jobLabel], 'catalog-gateway');
    assert.ok(
      !defaults.some((m) => m.metadata.name.endsWith('-gateway-metrics')),
      'no metrics Service without a ServiceMonitor (the chart’s Prometheus needs none)',
    );
  });
});

describe('tracing', () => {
  test('off by default: no OTEL_* variables, no Jaeger, no trace datasource', () => {
    assert.ok(!gatewayContainer(defaults).env.some((e: any) => e.name.startsWith('OTEL_')));
    assert.ok(!defaults.some((m) => m.metadata.name.endsWith('-jaeger')));
    assert.deepEqual(
      datasources(defaults).map((d: any) => d.type),
      ['prometheus'],
    );
  });

  test("tracing.jaeger.enabled: the gateway sends OTLP over HTTP to the chart's Jaeger, sampled by ratio", () => {
    const env = gatewayEnv(jaeger);
    assert.deepEqual(
      [env.OTEL_EXPORTER_OTLP_ENDPOINT, env.OTEL_SERVICE_NAME, env.OTEL_TRACES_SAMPLER, env.OTEL_TRACES_SAMPLER_ARG],
      ['http://shop-catalog-gateway-jaeger:4318', 'catalog-gateway', 'parentbased_traceidratio', '0.1'],
    );
  });

  test("the spans' resource names the pod (downward API) and tracing.resourceAttributes", async () => {
    const manifests = parseManifests(
      await helm.template({
        ...VALUE_SETS['read replicas, Redis Sentinel, Jaeger']!,
        tracing: { jaeger: { enabled: true }, resourceAttributes: { team: 'catalog', 'deployment.environment': 'prod' } },
      }),
    );
    const { env } = gatewayContainer(manifests);
    const fromField = (name: string) => env.find((e: any) => e.name === name)?.valueFrom?.fieldRef?.fieldPath;
    assert.deepEqual(['OTEL_K8S_POD_NAME', 'OTEL_K8S_NAMESPACE_NAME', 'OTEL_K8S_NODE_NAME'].map(fromField), [
      'metadata.name',
      'metadata.namespace',
      'spec.nodeName',
    ]);
    // Kubernetes expands $(VAR) only for variables defined before it in the list.
    const at = (name: string) => env.findIndex((e: any) => e.name === name);
    assert.ok(at('OTEL_K8S_NODE_NAME') < at('OTEL_RESOURCE_ATTRIBUTES'));
    assert.equal(
      gatewayEnv(manifests).OTEL_RESOURCE_ATTRIBUTES,
      'k8s.pod.name=$(OTEL_K8S_POD_NAME),k8s.namespace.name=$(OTEL_K8S_NAMESPACE_NAME),k8s.node.name=$(OTEL_K8S_NODE_NAME),deployment.environment=prod,team=catalog',
    );
  });

  test('Jaeger: a Deployment and a Service with OTLP in (4317, 4318) and the query API (16686); in-memory storage with a bound', () => {
    const service = findManifest(jaeger, 'Service', '-jaeger') as any;
    assert.deepEqual(
      service.spec.ports.map((p: any) => [p.name, p.port]),
      [
        ['otlp-grpc', 4317],
        ['otlp-http', 4318],
        ['query', 16686],
      ],
    );
    const deployment = findManifest(jaeger, 'Deployment', '-jaeger') as any;
    const [container] = deployment.spec.template.spec.containers;
    assert.deepEqual(container.args, ['--config=/etc/jaeger/config.yaml']);
    assert.equal(container.readinessProbe.httpGet.path, '/status');
    const config = parseYaml((findManifest(jaeger, 'ConfigMap', '-jaeger') as any).data['config.yaml']);
    assert.equal(config.extensions.jaeger_storage.backends.memory.memory.max_traces, 50000);
    assert.equal(config.extensions.jaeger_query.storage.traces, 'memory');
    assert.equal(config.exporters.jaeger_storage_exporter.trace_storage, 'memory');
    assert.deepEqual(config.service.pipelines.traces.receivers, ['otlp']);
    // What other pods reach listens on the pod's interfaces; the query gRPC API only on loopback.
    assert.equal(config.receivers.otlp.protocols.http.endpoint, '0.0.0.0:4318');
    assert.equal(config.extensions.jaeger_query.http.endpoint, '0.0.0.0:16686');
    assert.equal(config.extensions.jaeger_query.grpc.endpoint, '127.0.0.1:16685');
  });

  test('tracing.otlpEndpoint: the cluster’s own collector, no Jaeger in the chart', () => {
    assert.equal(gatewayEnv(collector).OTEL_EXPORTER_OTLP_ENDPOINT, 'http://otel-collector.observability:4318');
    assert.ok(!collector.some((m) => m.metadata.name.endsWith('-jaeger')));
  });

  test("Grafana's Prometheus datasource links exemplars' trace_id to a Jaeger datasource (the chart's, or grafana.jaegerUrl)", () => {
    const [prometheus, jaegerSource] = datasources(jaeger);
    assert.deepEqual(prometheus.jsonData.exemplarTraceIdDestinations, [{ name: 'trace_id', datasourceUid: jaegerSource.uid }]);
    assert.deepEqual([jaegerSource.type, jaegerSource.url], ['jaeger', 'http://shop-catalog-gateway-jaeger:16686']);
  });

  test('promtool accepts the Prometheus configuration; the server runs with exemplar storage', async () => {
    const args = (findManifest(jaeger, 'Deployment', '-prometheus') as any).spec.template.spec.containers[0].args;
    assert.ok(args.includes('--enable-feature=exemplar-storage'));
    const dir = join(scratch, 'promtool');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'prometheus.yml'), JSON.stringify({ ...prometheusConfig(jaeger), rule_files: [] }));
    const output = await runOk(requireTool('promtool'), ['check', 'config', join(dir, 'prometheus.yml')]);
    assert.match(output, /SUCCESS/);
  });
});

describe('gateway.files', () => {
  test('each file is mounted read-only under /etc/catalog-gateway/files, and a changed one rolls the pods', async () => {
    const overrides = JSON.stringify({ clients: { 'partner-a': { requestsPerMinute: 6000 } } });
    const manifests = parseManifests(await helm.template({ gateway: { files: { 'rate-limit-overrides.json': overrides } } }));
    const configMap = findManifest(manifests, 'ConfigMap', '-gateway-files') as any;
    assert.deepEqual(configMap.data, { 'rate-limit-overrides.json': overrides });
    const pod = (findManifest(manifests, 'Deployment', '-gateway') as any).spec.template;
    assert.deepEqual(
      pod.spec.containers[0].volumeMounts.find((m: any) => m.name === 'files'),
      { name: 'files', mountPath: '/etc/catalog-gateway/files', readOnly: true },
    );
    assert.equal(pod.spec.volumes.find((v: any) => v.name === 'files').configMap.name, configMap.metadata.name);
    const changed = parseManifests(await helm.template({ gateway: { files: { 'rate-limit-overrides.json': `${overrides}\n` } } }));
    const annotations = (m: Manifest[]) => (findManifest(m, 'Deployment', '-gateway') as any).spec.template.metadata.annotations;
    assert.notEqual(annotations(changed)['checksum/files'], annotations(manifests)['checksum/files']);
    assert.ok(!defaults.some((m) => m.metadata.name.endsWith('-gateway-files')));
  });
});
