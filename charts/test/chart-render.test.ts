// The chart rendered offline: lint, strict schema validation of every value set, the values
// schema rejecting bad input, and what each value set must (not) produce.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { CHART_DIR, findManifest, Helm, parseManifests, REPO_ROOT, VALUE_SETS, type Manifest } from './support/chart.js';
import { runOk } from '../../scripts/test/process.js';
import { kubeconform, prepareOfflineSchemas } from './support/schemas.js';
import { requireTool } from './support/tools.js';
import { chartSettings } from '../../scripts/config-contract.js';

/** Every gateway env var the chart sets from gateway.config (from the one contract definition). */
const CONFIG_ENV_VARS = chartSettings().map(({ env }) => env);

const helm = new Helm();
const scratch = mkdtempSync(join(tmpdir(), 'catalog-chart-render-'));
let schemaLocation: string;
const rendered = new Map<string, Manifest[]>();

before(async () => {
  schemaLocation = await prepareOfflineSchemas(join(scratch, 'schemas'));
  for (const [name, values] of Object.entries(VALUE_SETS)) {
    rendered.set(name, parseManifests(await helm.template(values)));
  }
});
after(() => {
  helm.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

const manifestsOf = (valueSet: string) => rendered.get(valueSet)!;

/** Every pod template (or bare pod spec) in the manifests, with the object it came from. */
function podSpecs(manifests: Manifest[]): { owner: string; spec: any; metadata: any }[] {
  return manifests.flatMap((m: any) => {
    const owner = `${m.kind}/${m.metadata.name}`;
    if (m.kind === 'Pod') return [{ owner, spec: m.spec, metadata: m.metadata }];
    if (m.spec?.template?.spec) return [{ owner, spec: m.spec.template.spec, metadata: m.spec.template.metadata }];
    return [];
  });
}

describe('helm lint and offline strict schema validation', () => {
  for (const [name, values] of Object.entries(VALUE_SETS)) {
    test(`helm lint --strict passes: ${name}`, async () => {
      const output = await helm.ok(['lint', '--strict', CHART_DIR, ...helm.offlineValuesArgs(values)]);
      assert.match(output, /1 chart\(s\) linted, 0 chart\(s\) failed/);
    });

    test(`kubeconform -strict accepts every object against the Kubernetes schemas: ${name}`, async () => {
      const yamlText = await helm.template(values);
      const summary = await kubeconform(yamlText, schemaLocation);
      const count = parseManifests(yamlText).length;
      assert.match(summary, new RegExp(`Valid: ${count}, Invalid: 0, Errors: 0, Skipped: 0`));
    });
  }

  test('kubeconform -strict rejects a wrong type and a misspelt field (the check is not vacuous)', async () => {
    const hpa = findManifest(manifestsOf('defaults'), 'HorizontalPodAutoscaler', '-gateway') as any;
    const broken = structuredClone(hpa);
    broken.spec.minReplicas = 'two';
    broken.spec.metrics[0].resource.target.averageUtilisation = 70;
    await assert.rejects(kubeconform(JSON.stringify(broken), schemaLocation), (error: Error) => {
      assert.match(error.message, /minReplicas/);
      assert.match(error.message, /averageUtilisation/);
      return true;
    });
  });
});

test('helm package follows the files/dashboards links and ships the dashboard and rules files, and the sample Varnish VCL', async () => {
  const output = await helm.ok(['package', CHART_DIR, '--destination', scratch]);
  const archive = output.trim().split(': ').pop()!;
  const listing = (await runOk('tar', ['-tzf', archive])).split('\n');
  assert.deepEqual(listing.filter((path) => path.includes('files/')).sort(), [
    'catalog-gateway/files/dashboards/catalog-gateway.json',
    'catalog-gateway/files/dashboards/prometheus-rules.yml',
    'catalog-gateway/files/varnish/backends.vcl',
    'catalog-gateway/files/varnish/catalog.vcl',
  ]);
  const fromArchive = parseManifests(await helm.ok(['template', 'shop', archive, '--namespace', 'catalog', ...helm.offlineValuesArgs({})]));
  const dashboard = (findManifest(fromArchive, 'ConfigMap', '-grafana-dashboards') as any).data['catalog-gateway.json'];
  assert.equal(dashboard, readFileSync(join(REPO_ROOT, 'dashboards/catalog-gateway.json'), 'utf8'));
  const rules = (findManifest(fromArchive, 'ConfigMap', '-prometheus-rules') as any).data['catalog-gateway.yml'];
  assert.equal(rules, readFileSync(join(REPO_ROOT, 'dashboards/prometheus-rules.yml'), 'utf8'));
});

describe('values.schema.json rejects bad values before anything is rendered', () => {
  const rejected: [string, object, RegExp][] = [
    ['a string replica count', { gateway: { replicas: 'two' } }, /replicas/],
    ['an unknown key', { gateway: { replicaCount: 2 } }, /replicaCount/],
    ['a misspelt nested key', { gateway: { autoscaling: { targetCPUUtilisationPercentage: 50 } } }, /targetCPUUtilisationPercentage/],
    ['an unknown top-level section', { postgres: { enabled: false } }, /postgres/],
    ['a loader source that does not exist', { loader: { source: 's3' } }, /source/],
    ['an unpinned image', { redis: { image: { repository: 'redis', tag: 'latest', pullPolicy: 'IfNotPresent' } } }, /tag/],
    ['a password that cannot go into a URL', { postgresql: { auth: { password: 'p@ss/word' } } }, /password/],
  ];
  for (const [what, values, mentions] of rejected) {
    test(`rejects ${what}`, async () => {
      const result = await helm.run(['template', 'shop', CHART_DIR, '-f', helm.valuesFile(values)]);
      assert.notEqual(result.code, 0, 'helm template must fail');
      assert.match(result.stderr, /values don't meet the specifications of the schema/);
      assert.match(result.stderr, mentions);
    });
  }

  test('rejects values that cannot work together, with a message saying what is missing', async () => {
    const result = await helm.run(['template', 'shop', CHART_DIR, '-f', helm.valuesFile({ postgresql: { enabled: false } })]);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /postgresql.enabled=false needs externalDatabase.url/);
  });
});

describe('what the value sets render', () => {
  test('every gateway env var of the contract is a value, in the ConfigMap under its contract name', () => {
    const configMap = findManifest(manifestsOf('defaults'), 'ConfigMap', '-gateway') as any;
    assert.deepEqual(Object.keys(configMap.data).sort(), [...CONFIG_ENV_VARS].sort());
    assert.equal(configMap.data.HOST, '0.0.0.0');
    assert.equal(configMap.data.SHUTDOWN_GRACE_MS, '10000');
  });

  test('the gateway pod gets DATABASE_URL (built from the Postgres Secret) and REDIS_URL; WRITE_TOKEN when set', () => {
    const env = (valueSet: string) =>
      (findManifest(manifestsOf(valueSet), 'Deployment', '-gateway') as any).spec.template.spec.containers[0].env as any[];
    const defaults = env('defaults');
    assert.equal(
      defaults.find((e) => e.name === 'DATABASE_URL').value,
      'postgres://catalog:$(POSTGRES_PASSWORD)@shop-catalog-gateway-postgresql:5432/catalog',
    );
    assert.equal(defaults.find((e) => e.name === 'POSTGRES_PASSWORD').valueFrom.secretKeyRef.name, 'shop-catalog-gateway-postgresql');
    assert.equal(defaults.find((e) => e.name === 'REDIS_URL').value, 'redis://:$(REDIS_PASSWORD)@shop-catalog-gateway-redis:6379/0');
    assert.equal(defaults.find((e) => e.name === 'REDIS_PASSWORD').valueFrom.secretKeyRef.name, 'shop-catalog-gateway-redis');
    assert.equal(
      defaults.find((e) => e.name === 'WRITE_TOKEN'),
      undefined,
    );

    const external = env('external Postgres + Redis, monitoring off');
    assert.deepEqual(external.find((e) => e.name === 'DATABASE_URL').valueFrom.secretKeyRef, {
      name: 'shop-catalog-gateway-gateway',
      key: 'DATABASE_URL',
    });
    assert.deepEqual(external.find((e) => e.name === 'REDIS_URL').valueFrom.secretKeyRef, {
      name: 'shop-catalog-gateway-gateway',
      key: 'REDIS_URL',
    });
    const secret = findManifest(manifestsOf('external Postgres + Redis, monitoring off'), 'Secret', '-gateway') as any;
    assert.equal(secret.stringData.DATABASE_URL, 'postgres://catalog:s3cret@db.example.internal:5432/catalog');

    const withToken = env('HPA off, fixed replicas, CSVs from a PVC');
    assert.equal(withToken.find((e) => e.name === 'WRITE_TOKEN').valueFrom.secretKeyRef.key, 'WRITE_TOKEN');
  });

  test('edge purges: targets and header names in the ConfigMap, API tokens only from existing Secrets', async () => {
    const manifests = parseManifests(
      await helm.template({
        gateway: {
          config: {
            edgePurgeVarnishUrls: 'http://varnish-0.varnish:6081/, http://varnish-1.varnish:6081/',
            edgePurgeFastlyServiceId: 'SU1Z0isxPaozGVKXdv0eY',
            edgePurgeCloudflareZoneId: '023e105f4ecef8ad9ca31a8372d0c353',
            edgeSurrogateKeyHeader: 'xkey',
            edgeCacheTagHeader: 'Edge-Cache-Tag',
            httpCacheSharedMaxAgeSeconds: 86400,
          },
          edgePurge: {
            existingFastlyTokenSecret: { name: 'cdn-tokens', key: 'fastly' },
            existingCloudflareTokenSecret: { name: 'cdn-tokens', key: 'cloudflare' },
          },
        },
      }),
    );
    const configMap = findManifest(manifests, 'ConfigMap', '-gateway') as any;
    assert.equal(configMap.data.EDGE_PURGE_VARNISH_URLS, 'http://varnish-0.varnish:6081/, http://varnish-1.varnish:6081/');
    assert.equal(configMap.data.EDGE_PURGE_FASTLY_SERVICE_ID, 'SU1Z0isxPaozGVKXdv0eY');
    assert.equal(configMap.data.EDGE_PURGE_CLOUDFLARE_ZONE_ID, '023e105f4ecef8ad9ca31a8372d0c353');
    assert.equal(configMap.data.EDGE_SURROGATE_KEY_HEADER, 'xkey');
    assert.equal(configMap.data.EDGE_CACHE_TAG_HEADER, 'Edge-Cache-Tag');
    assert.equal(configMap.data.HTTP_CACHE_SHARED_MAX_AGE_SECONDS, '86400');
    assert.equal(configMap.data.EDGE_PURGE_FASTLY_API_TOKEN, undefined, 'no token in the ConfigMap');
    const env = (findManifest(manifests, 'Deployment', '-gateway') as any).spec.template.spec.containers[0].env as any[];
    assert.deepEqual(env.find((e) => e.name === 'EDGE_PURGE_FASTLY_API_TOKEN').valueFrom.secretKeyRef, {
      name: 'cdn-tokens',
      key: 'fastly',
    });
    assert.deepEqual(env.find((e) => e.name === 'EDGE_PURGE_CLOUDFLARE_API_TOKEN').valueFrom.secretKeyRef, {
      name: 'cdn-tokens',
      key: 'cloudflare',
    });
    const defaults = (findManifest(manifestsOf('defaults'), 'Deployment', '-gateway') as any).spec.template.spec.containers[0].env as any[];
    assert.equal(
      defaults.find((e) => e.name.startsWith('EDGE_PURGE_')),
      undefined,
      'no purge credentials by default',
    );
    await assert.rejects(
      helm.template({ gateway: { edgePurge: { fastlyApiToken: 'inline-secret' } } }),
      /fastlyApiToken/,
      'a token given inline is refused by the values schema',
    );
  });

  test('a trusted-documents manifest is mounted read-only and named by GRAPHQL_TRUSTED_DOCUMENTS; a new one rolls the pods', async () => {
    const manifest = JSON.stringify({ 'product-name': 'query ProductName($id: ID!) { product(id: $id) { name } }' });
    const gatewayPod = (manifests: Manifest[]) => (findManifest(manifests, 'Deployment', '-gateway') as any).spec.template;
    const inline = parseManifests(await helm.template({ gateway: { trustedDocuments: { manifest } } }));
    const configMap = findManifest(inline, 'ConfigMap', '-trusted-documents') as any;
    assert.equal(configMap.data['manifest.json'], manifest);
    const pod = gatewayPod(inline);
    const [container] = pod.spec.containers;
    assert.equal(
      container.env.find((e: any) => e.name === 'GRAPHQL_TRUSTED_DOCUMENTS').value,
      '/etc/catalog-gateway/trusted-documents/manifest.json',
    );
    const mount = container.volumeMounts.find((m: any) => m.name === 'trusted-documents');
    assert.deepEqual(mount, { name: 'trusted-documents', mountPath: '/etc/catalog-gateway/trusted-documents', readOnly: true });
    assert.equal(pod.spec.volumes.find((v: any) => v.name === 'trusted-documents').configMap.name, configMap.metadata.name);

    const changed = gatewayPod(parseManifests(await helm.template({ gateway: { trustedDocuments: { manifest: `${manifest} ` } } })));
    assert.notEqual(changed.metadata.annotations['checksum/trusted-documents'], pod.metadata.annotations['checksum/trusted-documents']);

    const existing = parseManifests(
      await helm.template({ gateway: { trustedDocuments: { existingConfigMap: { name: 'storefront-operations', key: 'relay.json' } } } }),
    );
    assert.equal(
      existing.find((m: any) => m.kind === 'ConfigMap' && m.metadata.name.endsWith('-trusted-documents')),
      undefined,
    );
    const existingPod = gatewayPod(existing).spec;
    assert.equal(existingPod.volumes.find((v: any) => v.name === 'trusted-documents').configMap.name, 'storefront-operations');
    assert.equal(
      existingPod.containers[0].env.find((e: any) => e.name === 'GRAPHQL_TRUSTED_DOCUMENTS').value,
      '/etc/catalog-gateway/trusted-documents/relay.json',
    );

    const defaults = gatewayPod(manifestsOf('defaults')).spec;
    assert.equal(
      defaults.containers[0].env.find((e: any) => e.name === 'GRAPHQL_TRUSTED_DOCUMENTS'),
      undefined,
    );
    assert.equal(
      defaults.volumes.find((v: any) => v.name === 'trusted-documents'),
      undefined,
    );
  });

  test('the gateway drains: preStop sleep, then a grace period longer than SHUTDOWN_GRACE_MS plus that sleep', () => {
    const pod = (findManifest(manifestsOf('defaults'), 'Deployment', '-gateway') as any).spec.template.spec;
    const preStopSeconds = pod.containers[0].lifecycle.preStop.sleep.seconds;
    assert.ok(preStopSeconds > 0);
    assert.ok(pod.terminationGracePeriodSeconds > preStopSeconds + 10000 / 1000);
  });

  test('external Postgres + Redis with monitoring off renders none of those components', () => {
    const kinds = manifestsOf('external Postgres + Redis, monitoring off').map((m) => `${m.kind}/${m.metadata.name}`);
    for (const component of ['postgresql', 'redis', 'prometheus', 'grafana', 'kube-state-metrics']) {
      assert.deepEqual(
        kinds.filter((k) => k.includes(`-${component}`)),
        [],
        component,
      );
    }
    const loader = findManifest(manifestsOf('external Postgres + Redis, monitoring off'), 'Job', '-loader') as any;
    assert.deepEqual(
      loader.spec.template.spec.initContainers.map((c: any) => c.name),
      ['generate'],
    );
  });

  test('Postgres admits every connection the gateway can open at its largest scale, plus the loader', () => {
    const manifests = manifestsOf('defaults');
    const postgres = (findManifest(manifests, 'StatefulSet', '-postgresql') as any).spec.template.spec.containers[0];
    const maxConnections = Number(/^max_connections=(\d+)$/.exec(postgres.args[1])?.[1]);
    assert.equal(postgres.args[0], '-c');
    const maxReplicas = (findManifest(manifests, 'HorizontalPodAutoscaler', '-gateway') as any).spec.maxReplicas;
    const poolMax = Number((findManifest(manifests, 'ConfigMap', '-gateway') as any).data.DB_POOL_MAX);
    // Each pod: its pool plus one connection listening for catalog swaps and one following the change log; the loader uses two.
    assert.ok(maxReplicas * (poolMax + 2) + 2 <= maxConnections, `${maxReplicas} × (${poolMax} + 2) + 2 > ${maxConnections}`);
  });

  test('HPA off gives the Deployment its fixed replica count and no HPA; HPA on leaves replicas to it', () => {
    const fixed = manifestsOf('HPA off, fixed replicas, CSVs from a PVC');
    assert.equal((findManifest(fixed, 'Deployment', '-gateway') as any).spec.replicas, 3);
    assert.equal(fixed.filter((m) => m.kind === 'HorizontalPodAutoscaler').length, 0);
    const scaled = findManifest(manifestsOf('defaults'), 'Deployment', '-gateway') as any;
    assert.equal(scaled.spec.replicas, undefined);
  });

  test('the custom RPS metric is a Pods metric next to CPU', () => {
    const hpa = findManifest(manifestsOf('HPA on CPU and the custom RPS metric'), 'HorizontalPodAutoscaler', '-gateway') as any;
    assert.deepEqual(
      hpa.spec.metrics.map((m: any) => m.type),
      ['Resource', 'Pods'],
    );
    assert.deepEqual(hpa.spec.metrics[1].pods, {
      metric: { name: 'catalog_http_requests_per_second' },
      target: { type: 'AverageValue', averageValue: '150' },
    });
  });

  test('the loader reads the CSVs from the claim when source=pvc, read-only, and generates nothing', () => {
    const job = findManifest(manifestsOf('HPA off, fixed replicas, CSVs from a PVC'), 'Job', '-loader') as any;
    const pod = job.spec.template.spec;
    assert.deepEqual(
      pod.initContainers.map((c: any) => c.name),
      ['wait-for-postgresql'],
    );
    assert.deepEqual(pod.volumes.find((v: any) => v.name === 'data').persistentVolumeClaim, { claimName: 'atelier-csv', readOnly: true });
    const mount = pod.containers[0].volumeMounts.find((m: any) => m.name === 'data');
    assert.deepEqual([mount.readOnly, mount.subPath], [true, 'export']);
    assert.deepEqual(pod.containers[0].args.slice(0, 5), ['load', '--data', '/work/data', '--report', '/work/report/load-report.json']);
    assert.equal(pod.containers[0].args[5], '--skip-if-source-unchanged', 'the default run policy passes the source fingerprint');
  });

  test('the loader is a post-install/post-upgrade/post-rollback hook that generates then loads by default', () => {
    const job = findManifest(manifestsOf('defaults'), 'Job', '-loader') as any;
    assert.equal(job.metadata.annotations['helm.sh/hook'], 'post-install,post-upgrade,post-rollback');
    assert.equal(job.metadata.annotations['helm.sh/hook-delete-policy'], 'before-hook-creation');
    const generate = job.spec.template.spec.initContainers.find((c: any) => c.name === 'generate');
    assert.deepEqual(generate.args, ['generate', '--out', '/work/data', '--products', '1000', '--seed', '1']);
    assert.ok(job.spec.backoffLimit >= 0 && job.spec.ttlSecondsAfterFinished > 0);
  });

  test('every pod runs non-root with RuntimeDefault seccomp; every container read-only, no capabilities, no privilege escalation', () => {
    for (const valueSet of Object.keys(VALUE_SETS)) {
      for (const { owner, spec } of podSpecs(manifestsOf(valueSet))) {
        assert.equal(spec.securityContext.runAsNonRoot, true, owner);
        assert.ok(spec.securityContext.runAsUser > 0, owner);
        assert.equal(spec.securityContext.seccompProfile.type, 'RuntimeDefault', owner);
        for (const container of [...(spec.initContainers ?? []), ...spec.containers]) {
          const where = `${owner} container ${container.name}`;
          assert.equal(container.securityContext.readOnlyRootFilesystem, true, where);
          assert.equal(container.securityContext.allowPrivilegeEscalation, false, where);
          assert.deepEqual(container.securityContext.capabilities.drop, ['ALL'], where);
          assert.match(container.image, /^[^:]+(\/[^:]+)*:[0-9a-z][\w.-]*$/, `${where} image must carry a tag`);
          assert.doesNotMatch(container.image, /:latest$/, where);
          assert.ok(container.resources?.requests, `${where} needs resource requests`);
        }
      }
    }
  });

  test('Postgres and Redis NetworkPolicies admit exactly the gateway and loader pods of the release (and, for Postgres, its read replicas)', () => {
    const manifests = manifestsOf('defaults');
    const podLabels = (kind: string, suffix: string) => (findManifest(manifests, kind, suffix) as any).spec.template.metadata.labels;
    const clients = [podLabels('Deployment', '-gateway'), podLabels('Job', '-loader')];
    for (const [datastore, kind] of [
      ['-postgresql', 'StatefulSet'],
      ['-redis', 'Deployment'],
    ]) {
      const policy = findManifest(manifests, 'NetworkPolicy', datastore!) as any;
      assert.deepEqual(policy.spec.podSelector.matchLabels, (findManifest(manifests, kind!, datastore!) as any).spec.selector.matchLabels);
      const peers = policy.spec.ingress[0].from.map((peer: any) => peer.podSelector.matchLabels);
      const replicas = datastore === '-postgresql' ? ['postgresql-read'] : [];
      assert.deepEqual(
        peers.slice(2).map((peer: any) => peer['app.kubernetes.io/component']),
        replicas,
        datastore,
      );
      for (const [index, labels] of clients.entries()) {
        for (const [key, value] of Object.entries(peers[index])) assert.equal(labels[key], value, `${datastore} peer ${key}`);
      }
    }
  });

  test('the Grafana dashboard ConfigMap carries dashboards/catalog-gateway.json unchanged', () => {
    const configMap = findManifest(manifestsOf('defaults'), 'ConfigMap', '-grafana-dashboards') as any;
    const committed = JSON.parse(readFileSync(join(REPO_ROOT, 'dashboards/catalog-gateway.json'), 'utf8'));
    assert.deepEqual(JSON.parse(configMap.data['catalog-gateway.json']), committed);
  });

  test('promtool accepts the Prometheus config with the shared rules file, which scrapes the gateway pods and kube-state-metrics', async () => {
    const manifests = manifestsOf('defaults');
    const config = parseYaml((findManifest(manifests, 'ConfigMap', '-prometheus') as any).data['prometheus.yml']);
    const rules = (findManifest(manifests, 'ConfigMap', '-prometheus-rules') as any).data['catalog-gateway.yml'];
    assert.equal(rules, readFileSync(join(REPO_ROOT, 'dashboards/prometheus-rules.yml'), 'utf8'));

    const gatewayJob = config.scrape_configs.find((job: any) => job.job_name === 'catalog-gateway');
    assert.deepEqual(gatewayJob.kubernetes_sd_configs[0].namespaces.names, ['catalog']);
    assert.equal(
      gatewayJob.kubernetes_sd_configs[0].selectors[0].label,
      'app.kubernetes.io/instance=shop,app.kubernetes.io/component=gateway',
    );
    const ksmJob = config.scrape_configs.find((job: any) => job.job_name === 'kube-state-metrics');
    assert.deepEqual(ksmJob.static_configs[0].targets, ['shop-catalog-gateway-kube-state-metrics:8080']);

    // promtool resolves rule_files from the config's own folder: point it at the rules' copy.
    const dir = join(scratch, 'promtool');
    await runOk('mkdir', ['-p', dir]);
    writeFileSync(join(dir, 'rules.yml'), rules);
    writeFileSync(join(dir, 'prometheus.yml'), JSON.stringify({ ...config, rule_files: ['rules.yml'] }));
    const output = await runOk(requireTool('promtool'), ['check', 'config', join(dir, 'prometheus.yml')]);
    assert.match(output, /SUCCESS: \d+ rules found/);
  });

  test('the optional ServiceMonitor selects the gateway metrics Service and its metrics port', async () => {
    const manifests = parseManifests(await helm.template({ serviceMonitor: { enabled: true, labels: { release: 'kps' } } }));
    const monitor = findManifest(manifests, 'ServiceMonitor', '-gateway') as any;
    const service = findManifest(manifests, 'Service', '-gateway-metrics') as any;
    assert.equal(monitor.metadata.labels.release, 'kps');
    for (const [key, value] of Object.entries(monitor.spec.selector.matchLabels)) assert.equal(service.metadata.labels[key], value);
    assert.equal(service.metadata.labels[monitor.spec.jobLabel], 'catalog-gateway', 'job label must be catalog-gateway');
    assert.ok(service.spec.ports.some((port: any) => port.name === monitor.spec.endpoints[0].port));
  });
});
