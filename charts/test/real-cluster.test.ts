// The chart on a real single-node cluster: real containers from the project's images (and local
// stand-ins for the third-party ones), inside a network namespace this test creates. Every step
// is asserted on running pods. Needs root; skipped with the reason elsewhere, failed under CI=true.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { CHART_DIR, Helm, NAMESPACE, RELEASE } from './support/chart.js';
import { parentOf, spansNamed, tagOf, type JaegerTrace } from '../../scripts/test/jaeger.js';
import { metricValue } from '../../scripts/test/metrics.js';
import { GroupProcess } from '../../scripts/test/process.js';
import { waitFor } from '../../scripts/test/wait.js';
import { IMAGES_BUILD_SCRIPT, missingPrerequisite } from './support/real-cluster/prerequisites.js';
import { NODE } from './support/real-cluster/node-config.js';
import { RealCluster } from './support/real-cluster/real-cluster.js';
import { ClusterSkaffold } from './support/real-cluster/skaffold.js';
import { requireTool, TOOLS_DIR } from './support/tools.js';
import { createNamespace } from './support/namespace.js';

const missing = missingPrerequisite();
if (missing && process.env.CI === 'true') throw new Error(`real-cluster test cannot run under CI: ${missing}`);

const HELM_TIMEOUT = '300s';
const K6_SCRIPT = fileURLToPath(new URL('support/real-cluster/service-load.js', import.meta.url));
const name = (component: string) => `${RELEASE}-catalog-gateway-${component}`;

/**
 * Small enough for a shared 2-core machine: low CPU requests (the HPA target is a percentage of
 * them, so a k6 run crosses it), a small generated catalog, short HPA windows. Grafana is off:
 * no Grafana server can be built or installed here. The gateway's request is the chart's default,
 * several times what an idle gateway spends (its leases, the change-log poll, probes and scrapes;
 * more while other suites share the machine): the HPA goes back to two replicas only while the
 * average stays under a third of the request.
 */
const VALUES = {
  gateway: {
    resources: { requests: { cpu: '250m', memory: '128Mi' }, limits: { memory: '512Mi' } },
    // The cache's budget must fit half of the V8 heap Node sizes from that limit (~260 MiB).
    config: { cacheMaxBytes: 64 * 1024 ** 2 },
    autoscaling: {
      minReplicas: 2,
      maxReplicas: 4,
      targetCPUUtilizationPercentage: 50,
      behavior: {
        scaleUp: { stabilizationWindowSeconds: 0, policies: [{ type: 'Pods', value: 2, periodSeconds: 5 }] },
        scaleDown: { stabilizationWindowSeconds: 15, policies: [{ type: 'Percent', value: 100, periodSeconds: 5 }] },
      },
    },
    writeToken: 'real-cluster-write-token',
  },
  postgresql: { resources: { requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '1Gi' } } },
  redis: { resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '256Mi' } } },
  loader: {
    generate: { products: 200, seed: 1 },
    resources: { requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '1Gi' } },
  },
  prometheus: { scrapeInterval: '5s', resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '1Gi' } } },
  kubeStateMetrics: { resources: { requests: { cpu: '20m', memory: '32Mi' }, limits: { memory: '256Mi' } } },
  grafana: { enabled: false },
};

/**
 * The HA and tracing profile the release is upgraded to after the rollback: two streaming read
 * replicas, Redis with Sentinel and Jaeger. Only requests whose caller samples them are traced:
 * the k6 script's, by ids the test knows.
 */
const HA_TRACING_VALUES = {
  postgresql: {
    readReplicas: { replicaCount: 2, resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '512Mi' } } },
  },
  redis: { sentinel: { enabled: true, resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '64Mi' } } } },
  tracing: {
    sampler: 'parentbased_always_off',
    jaeger: { enabled: true, maxTraces: 10_000, resources: { requests: { cpu: '20m', memory: '64Mi' }, limits: { memory: '512Mi' } } },
  },
};

let cluster: RealCluster;
let helm: Helm;
/** The values of the release's current revision (the upgrade steps change them). */
let deployedValues: typeof VALUES & { gateway: { image?: { tag: string } }; tracing?: typeof HA_TRACING_VALUES.tracing } = VALUES;

/** images.json: prebuilt (CATALOG_IMAGES_DIR) or built now by scripts/images/build-all.sh. */
function imagesManifest(): string {
  const prebuilt = process.env.CATALOG_IMAGES_DIR;
  if (prebuilt) return join(prebuilt, 'images.json');
  const out = join(TOOLS_DIR, '..', 'images', 'real-cluster');
  execFileSync('bash', [IMAGES_BUILD_SCRIPT, '--out', out], { stdio: ['ignore', 'inherit', 'inherit'] });
  const manifest = join(out, 'images.json');
  if (!existsSync(manifest)) throw new Error(`${IMAGES_BUILD_SCRIPT} wrote no ${manifest}`);
  return manifest;
}

/** Runs a check; a failure carries the node's process logs and the namespace's pods. */
async function withClusterLogs(check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (error) {
    const pods = await cluster.kubectlResult(['get', 'pods', '-A', '-o', 'wide']);
    (error as Error).message += `\n\npods:\n${pods.stdout}${pods.stderr}\n\nnode logs:\n${cluster.logTails()}`;
    throw error;
  }
}

/** A step, timed: the durations go to the test output for the report. */
const step = (title: string, check: () => Promise<void>) =>
  test(title, async () => {
    const started = Date.now();
    await withClusterLogs(check);
    console.log(`# step "${title}" took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });

/** `helm upgrade` to these values, waiting for the rollout and the loader hook. */
async function upgrade(values: object): Promise<void> {
  await helm.ok(helm.deployArgs('upgrade', values, HELM_TIMEOUT));
}

/** The log of the loader Job's load container (the Job of the latest install or upgrade). */
const loaderLog = () => cluster.kubectl(['logs', '-n', NAMESPACE, `job/${name('loader')}`, '-c', 'load']);

async function releaseStatus(): Promise<{ version: number; info: { status: string } }> {
  return JSON.parse(await helm.ok(['status', RELEASE, '--namespace', NAMESPACE, '-o', 'json']));
}

async function pods(selector: string): Promise<any[]> {
  const list = await cluster.getJson(['pods', '-n', NAMESPACE, '-l', selector]);
  return list.items.filter((pod: any) => !pod.metadata.deletionTimestamp);
}

const GATEWAY_PODS = 'app.kubernetes.io/component=gateway';

describe('the chart on a real single-node cluster', { skip: missing ? `real-cluster: ${missing}` : false }, () => {
  before(async () => {
    const started = Date.now();
    cluster = await RealCluster.start({ imagesManifest: imagesManifest(), persistentVolumes: 4, imageRegistry: true });
    const phases = Object.entries(cluster.timings).map(([phase, seconds]) => `${phase} ${seconds.toFixed(1)} s`);
    console.log(`# real cluster up in ${((Date.now() - started) / 1000).toFixed(1)} s (${phases.join(', ')})`);
    helm = new Helm(cluster.kubeconfig, cluster.inNamespace);
    await createNamespace(cluster, NAMESPACE);
  });

  after(async () => {
    try {
      await cluster?.stop();
    } finally {
      helm?.cleanup();
    }
  });

  step('helm install --wait --wait-for-jobs: every pod runs real containers and is Ready', async () => {
    const result = await helm.run([
      'install',
      RELEASE,
      CHART_DIR,
      '--namespace',
      NAMESPACE,
      '-f',
      helm.valuesFile(VALUES),
      '--wait',
      '--wait-for-jobs',
      '--timeout',
      HELM_TIMEOUT,
    ]);
    assert.equal(result.code, 0, `${result.stderr}\n${result.stdout}`);
    assert.equal((await releaseStatus()).info.status, 'deployed');

    const running = (await pods('app.kubernetes.io/instance=shop')).filter((pod) => pod.status.phase === 'Running');
    const components = running.map((pod) => pod.metadata.labels['app.kubernetes.io/component']).sort();
    assert.deepEqual(components, ['gateway', 'gateway', 'kube-state-metrics', 'postgresql', 'prometheus', 'redis']);
    for (const pod of running) {
      for (const status of pod.status.containerStatuses) {
        assert.match(status.containerID, /^containerd:\/\//, `${pod.metadata.name} runs a real container`);
        assert.equal(status.ready, true, `${pod.metadata.name}/${status.name} is Ready`);
        assert.ok(status.state.running, `${pod.metadata.name}/${status.name} is running`);
      }
    }
  });

  // The node offers several identical volumes; whichever the claim bound must stay its volume.
  let postgresVolume: string | undefined;
  step('the Postgres StatefulSet runs on a bound PersistentVolume', async () => {
    const claim = await cluster.getJson(['pvc', `data-${name('postgresql')}-0`, '-n', NAMESPACE]);
    assert.equal(claim.status.phase, 'Bound');
    assert.match(claim.spec.volumeName, /^node-pv-\d+$/);
    postgresVolume = claim.spec.volumeName;
    const volume = await cluster.getJson(['pv', claim.spec.volumeName]);
    assert.equal(volume.status.phase, 'Bound');
    assert.equal(volume.spec.claimRef.name, claim.metadata.name);
    const statefulSet = await cluster.getJson(['statefulset', name('postgresql'), '-n', NAMESPACE]);
    assert.equal(statefulSet.status.readyReplicas, 1);
  });

  step('the loader Job generated and loaded the catalog into the Postgres pod', async () => {
    const job = await cluster.getJson(['job', name('loader'), '-n', NAMESPACE]);
    assert.equal(job.status.succeeded, 1);
    const count = await psql('SELECT count(*) FROM catalog.products');
    assert.equal(count.trim(), '200');
  });

  step('helm test passes (its pod runs in the cluster against the Service)', async () => {
    const output = await helm.ok(['test', RELEASE, '--namespace', NAMESPACE, '--timeout', HELM_TIMEOUT]);
    assert.match(output, /TEST SUITE:\s+shop-catalog-gateway-smoke-test[\s\S]*Phase:\s+Succeeded/);
  });

  step('REST and GraphQL answer through the Service (kube-proxy), bodies equal to the rows in Postgres', async () => {
    const base = await gatewayServiceUrl();
    const expected = JSON.parse(await psql(PRODUCT_1_AS_ATELIER_JSON));
    const rest = await httpInNamespace(`${base}/products/1`);
    assert.equal(rest.status, 200, rest.body);
    assert.deepEqual(JSON.parse(rest.body), expected);

    const graphql = await httpInNamespace(`${base}/graphql`, {
      json: {
        query: '{ product(id: "1") { id name slogan category defaultPrice createdAt features { feature value } } }',
      },
    });
    assert.equal(graphql.status, 200, graphql.body);
    assert.deepEqual(JSON.parse(graphql.body), {
      data: {
        product: {
          id: '1',
          name: expected.name,
          slogan: expected.slogan,
          category: expected.category,
          defaultPrice: expected.default_price,
          createdAt: expected.created_at,
          features: expected.features,
        },
      },
    });

    const missing = await httpInNamespace(`${base}/products/999999`);
    assert.equal(missing.status, 404);
    assert.match(JSON.parse(missing.body).error, /999999/);
  });

  step(
    'an UPDATE made in psql, not through the gateway, reaches both gateway pods’ cached reads, REST and GraphQL, within the stated bound',
    async () => {
      await sqlChangeReachesEveryPod(7);
    },
  );

  step('gateway containers run as uid 10001 on a read-only root filesystem, without capabilities', async () => {
    // Every gateway pod, however many the HPA runs by now (the steps before read them hard).
    const gatewayPods = await pods(GATEWAY_PODS);
    assert.ok(gatewayPods.length >= VALUES.gateway.autoscaling.minReplicas, `${gatewayPods.length} gateway pods`);
    for (const pod of gatewayPods) {
      const [container] = pod.spec.containers;
      assert.deepEqual(container.resources, VALUES.gateway.resources);
      assert.deepEqual(container.securityContext, {
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      assert.equal(pod.spec.securityContext.runAsNonRoot, true);
      // From inside the running container: who it is, what it may do, where it may write.
      const report = JSON.parse(
        await cluster.kubectl(['exec', '-n', NAMESPACE, pod.metadata.name, '-c', container.name, '--', 'node', '-e', INSIDE_THE_CONTAINER]),
      );
      assert.deepEqual(
        report,
        {
          uid: 10001,
          gid: 10001,
          capEff: '0000000000000000',
          noNewPrivs: '1',
          rootWrite: 'EROFS',
          appWrite: 'EROFS',
          tmpWrite: 'ok',
        },
        pod.metadata.name,
      );
    }
  });

  step('Prometheus in the cluster discovers the gateway pods, scrapes the RED series, evaluates the rules', async () => {
    const base = await gatewayServiceUrl();
    for (let round = 0; round < 5; round++) {
      await httpInNamespace(`${base}/products/${round + 1}`);
      await httpInNamespace(`${base}/graphql`, { json: { query: '{ products(count: 2) { id } }' } });
    }
    const prometheus = await serviceUrl('prometheus');
    const gatewayPodNames = (await pods(GATEWAY_PODS)).map((pod) => pod.metadata.name).sort();
    await waitFor(
      'both gateway pods as healthy targets of job catalog-gateway',
      async () => {
        const targets = await prometheusApi(prometheus, '/api/v1/targets?state=active');
        const gateway = targets.activeTargets.filter((t: any) => t.labels.job === 'catalog-gateway');
        const up = gateway
          .filter((t: any) => t.health === 'up')
          .map((t: any) => t.labels.pod)
          .sort();
        return JSON.stringify(up) === JSON.stringify(gatewayPodNames) ? true : undefined;
      },
      60_000,
      1000,
    );

    // The series the dashboard's panels and the recording rules read, and the rules' results.
    const series = async (query: string) => (await prometheusApi(prometheus, `/api/v1/query?query=${encodeURIComponent(query)}`)).result;
    await waitFor(
      'RED series and recorded rules with the product route',
      async () => {
        const requests = await series('sum by (route) (rate(catalog_http_requests_total{job="catalog-gateway"}[1m]))');
        const duration = await series(
          'histogram_quantile(0.95, sum by (le, route) (rate(catalog_http_request_duration_seconds_bucket{job="catalog-gateway"}[1m])))',
        );
        const operations = await series('sum(catalog_graphql_operations_total{job="catalog-gateway"})');
        const recorded = await series('route:catalog_http_requests:rate5m');
        const routes = (result: any[]) => result.map((r) => r.metric.route);
        return routes(requests).includes('/products/:product_id') &&
          routes(duration).includes('/products/:product_id') &&
          Number(operations[0]?.value[1]) >= 5 &&
          routes(recorded).includes('/products/:product_id')
          ? true
          : undefined;
      },
      90_000,
      2000,
    );
    await waitFor(
      "kube-state-metrics reporting the gateway Deployment's available replicas",
      async () => {
        const available = await series(`kube_deployment_status_replicas_available{deployment="${name('gateway')}"}`);
        const deployment = await cluster.getJson(['deployment', name('gateway'), '-n', NAMESPACE]);
        return available[0]?.value[1] === String(deployment.status.availableReplicas) ? true : undefined;
      },
      30_000,
      1000,
    );

    const rules = await prometheusApi(prometheus, '/api/v1/rules');
    const all = rules.groups.flatMap((group: any) => group.rules);
    assert.ok(all.length > 10, 'the shared rules file is loaded');
    assert.deepEqual(
      all.filter((rule: any) => rule.health !== 'ok').map((rule: any) => `${rule.name}: ${rule.lastError}`),
      [],
    );
  });

  step('the HPA scales the gateway above minReplicas under k6 load, and back down after it', async () => {
    await waitFor(
      'pod CPU from metrics-server for the gateway pods',
      async () => {
        const metrics = JSON.parse(await cluster.kubectl(['get', '--raw', `/apis/metrics.k8s.io/v1beta1/namespaces/${NAMESPACE}/pods`]));
        const gateway = metrics.items.filter((item: any) => item.metadata.name.startsWith(name('gateway')));
        return gateway.length >= 2 ? true : undefined;
      },
      90_000,
      2000,
    );

    const timeline: string[] = [];
    const started = Date.now();
    const sample = async () => {
      const hpa = await cluster.getJson(['hpa', name('gateway'), '-n', NAMESPACE]);
      const cpu = hpa.status.currentMetrics?.[0]?.resource?.current?.averageUtilization;
      const deployment = await cluster.getJson(['deployment', name('gateway'), '-n', NAMESPACE]);
      const entry = { replicas: deployment.spec.replicas as number, ready: deployment.status.readyReplicas ?? 0 };
      timeline.push(
        `${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s  cpu ${String(cpu ?? '-').padStart(4)}%  ` +
          `desired ${hpa.status.desiredReplicas}  replicas ${entry.replicas}  ready ${entry.ready}`,
      );
      return entry;
    };

    try {
      // From minReplicas, so the scale-up is the load's (the steps before may have scaled it).
      await waitFor(
        'the gateway at minReplicas before the load',
        async () => {
          const { replicas, ready } = await sample();
          return replicas === VALUES.gateway.autoscaling.minReplicas && ready === replicas ? true : undefined;
        },
        150_000,
        2000,
      );
      timeline.push(`${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s  k6 started`);
      const load = await startK6({ vus: 8, duration: '120s', pauseSeconds: 0 });
      try {
        await waitFor(
          'the gateway scaled above 2 ready replicas',
          async () => {
            const { ready } = await sample();
            return ready > VALUES.gateway.autoscaling.minReplicas ? true : undefined;
          },
          110_000,
          2000,
        );
      } finally {
        timeline.push(`${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s  k6 stopped`);
        await load.stop();
      }
      await waitFor(
        'the gateway back at minReplicas',
        async () => {
          const { replicas } = await sample();
          return replicas === VALUES.gateway.autoscaling.minReplicas ? true : undefined;
        },
        150_000,
        2000,
      );
    } finally {
      console.log(`# HPA replica timeline:\n#   ${timeline.join('\n#   ')}`);
    }
  });

  step('0 failed requests while a gateway pod is deleted and during a rolling restart (k6 through the Service)', async () => {
    const load = await startK6({ vus: 4, duration: '240s', pauseSeconds: 0.05 });
    let result: { summary: K6Summary; log: string };
    try {
      await sleep(5_000);
      const [victim] = await pods(GATEWAY_PODS);
      await cluster.kubectl(['delete', 'pod', '-n', NAMESPACE, victim.metadata.name, '--wait=false']);
      await waitFor(
        'a replacement gateway pod Ready',
        async () => {
          const ready = (await pods(GATEWAY_PODS)).filter(
            (pod) => pod.metadata.name !== victim.metadata.name && pod.status.containerStatuses?.every((c: any) => c.ready),
          );
          return ready.length >= VALUES.gateway.autoscaling.minReplicas ? true : undefined;
        },
        90_000,
        1000,
      );
      await cluster.kubectl(['rollout', 'restart', `deployment/${name('gateway')}`, '-n', NAMESPACE]);
      await cluster.kubectl(['rollout', 'status', `deployment/${name('gateway')}`, '-n', NAMESPACE, '--timeout=180s']);
      await sleep(5_000);
    } finally {
      result = await load.stop();
    }
    const { summary, log } = result;
    const requests = summary.metrics.http_reqs.count;
    const failed = summary.metrics.http_req_failed.passes;
    console.log(`# during pod deletion + rolling restart: ${requests} requests, ${failed} failed`);
    assert.ok(requests > 100, `k6 sent ${requests} requests`);
    assert.equal(failed, 0, `failed requests:\n${log}`);
    assert.equal(summary.metrics.checks.fails, 0, `failed checks\n${log}`);
  });

  step('upgrades keep data: after an image bump the API writes are served (no reload); a new catalog source reloads', async () => {
    const base = await gatewayServiceUrl();
    const token = VALUES.gateway.writeToken;
    const loadedAt = () => psql('SELECT loaded_at FROM catalog.catalog_source');
    const installLoad = await loadedAt();

    // Writes through the API, with the bearer token the chart configured: REST and GraphQL.
    const renamed = await httpInNamespace(`${base}/products/1`, { method: 'PUT', json: { name: 'Renamed through the API' }, token });
    assert.equal(renamed.status, 200, renamed.body);
    const created = await httpInNamespace(`${base}/graphql`, {
      json: { query: 'mutation { createProduct(input: { name: "Created through the API", defaultPrice: "12.50" }) { id } }' },
      token,
    });
    assert.equal(created.status, 200, created.body);
    const createdId: string = JSON.parse(created.body).data.createProduct.id;
    const writesServed = async () => {
      const product1 = await httpInNamespace(`${base}/products/1`);
      assert.equal(product1.status, 200, product1.body);
      assert.equal(JSON.parse(product1.body).name, 'Renamed through the API');
      const createdProduct = await httpInNamespace(`${base}/graphql`, {
        json: { query: `{ product(id: "${createdId}") { name defaultPrice } }` },
      });
      assert.deepEqual(JSON.parse(createdProduct.body), { data: { product: { name: 'Created through the API', defaultPrice: '12.50' } } });
    };
    await writesServed();

    // An image bump: the gateway image under a new tag on the node, as a pushed release would be.
    const [gatewayContainer] = (await pods(GATEWAY_PODS))[0].status.containerStatuses;
    const bumpedTag = `${gatewayContainer.image.split(':').pop()}-upgraded`;
    await cluster.tagImage(gatewayContainer.image, gatewayContainer.image.replace(/:[^:/]+$/, `:${bumpedTag}`));
    deployedValues = { ...deployedValues, gateway: { ...deployedValues.gateway, image: { tag: bumpedTag } } };
    await upgrade(deployedValues);
    await waitFor(
      `only gateway pods running the ${bumpedTag} image`,
      async () => {
        const images = (await pods(GATEWAY_PODS)).map((pod) => pod.spec.containers[0].image);
        return images.length >= 2 && images.every((image) => image === `catalog-gateway:${bumpedTag}`) ? true : undefined;
      },
      120_000,
      1000,
    );
    assert.match(await loaderLog(), /catalog source unchanged/, 'the post-upgrade loader Job ran and loaded nothing');
    assert.equal(await loadedAt(), installLoad, 'the served catalog is still the one loaded at install');
    await writesServed();
    console.log(`# after the image bump to ${bumpedTag}: loader skipped the load, both writes served`);

    // A new catalog source (another generator seed): the upgrade reloads, replacing the catalog
    // and with it the writes (the chart README's run policy: a reload replaces the catalog).
    deployedValues = { ...deployedValues, loader: { ...deployedValues.loader, generate: { products: 200, seed: 2 } } };
    await upgrade(deployedValues);
    assert.match(await loaderLog(), /catalog swapped into service/, 'the post-upgrade loader Job loaded the new catalog');
    assert.notEqual(await loadedAt(), installLoad, 'the served catalog was loaded by this upgrade');
    assert.equal((await psql('SELECT count(*) FROM catalog.products')).trim(), '200');
    const reloaded = JSON.parse(await psql(PRODUCT_1_AS_ATELIER_JSON));
    assert.notEqual(reloaded.name, 'Renamed through the API');
    await waitFor(
      'the gateway serving the reloaded catalog',
      async () => {
        const product1 = await httpInNamespace(`${base}/products/1`);
        const gone = await httpInNamespace(`${base}/products/${createdId}`);
        return product1.status === 200 && isDeepStrictEqual(JSON.parse(product1.body), reloaded) && gone.status === 404 ? true : undefined;
      },
      30_000,
      1000,
    );
  });

  step('helm rollback returns to the previous revision, and the gateway serves again', async () => {
    const previous = await releaseStatus();
    await upgrade({
      ...deployedValues,
      gateway: { ...deployedValues.gateway, podAnnotations: { 'catalog-gateway.test/revision': 'upgraded' } },
    });
    const annotated = async () => (await pods(GATEWAY_PODS)).map((pod) => pod.metadata.annotations?.['catalog-gateway.test/revision']);
    assert.ok((await annotated()).includes('upgraded'), 'the upgrade rolled the gateway');

    await helm.ok(['rollback', RELEASE, String(previous.version), '--namespace', NAMESPACE, '--wait', '--timeout', HELM_TIMEOUT]);
    const restored = await releaseStatus();
    assert.equal(restored.info.status, 'deployed');
    assert.equal(restored.version, previous.version + 2);
    await cluster.kubectl(['rollout', 'status', `deployment/${name('gateway')}`, '-n', NAMESPACE, '--timeout=180s']);
    await waitFor(
      'only gateway pods of the installed revision',
      async () => {
        const revisions = await annotated();
        return revisions.length >= 2 && revisions.every((revision) => revision === undefined) ? true : undefined;
      },
      90_000,
      1000,
    );
    const product = await httpInNamespace(`${await gatewayServiceUrl()}/products/1`);
    assert.equal(product.status, 200, product.body);
  });

  // The HA and tracing profile, on the same release: one upgrade, one k6 run for every disruption.
  step(
    'helm upgrade to 2 read replicas, Redis with Sentinel and Jaeger: the primary restarts once to take replicas, the Sentinel group replaces the single Redis',
    async () => {
      const primaryPod = async () => (await cluster.getJson(['pod', `${name('postgresql')}-0`, '-n', NAMESPACE])).metadata.uid;
      const primaryBefore = await primaryPod();
      deployedValues = {
        ...deployedValues,
        postgresql: { ...deployedValues.postgresql, ...HA_TRACING_VALUES.postgresql },
        redis: { ...deployedValues.redis, ...HA_TRACING_VALUES.redis },
        tracing: HA_TRACING_VALUES.tracing,
      };
      await upgrade(deployedValues);
      const statefulSets = await cluster.getJson(['statefulsets', '-n', NAMESPACE]);
      assert.deepEqual(
        Object.fromEntries(
          statefulSets.items.map((set: any) => [set.metadata.name, `${set.status.readyReplicas ?? 0}/${set.spec.replicas}`]),
        ),
        { [name('postgresql')]: '1/1', [name('postgresql-read')]: '2/2', [name('redis')]: '3/3', [name('redis-sentinel')]: '3/3' },
      );
      assert.equal((await cluster.getJson(['deployment', name('jaeger'), '-n', NAMESPACE])).status.availableReplicas, 1);
      assert.deepEqual((await cluster.getJson(['deployments', '-n', NAMESPACE, '-l', 'app.kubernetes.io/component=redis'])).items, []);
      // The replication role is created by the primary's init container: it restarted to run it.
      assert.notEqual(await primaryPod(), primaryBefore, 'the primary restarted');
      assert.equal((await psql("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")).trim(), '2');
      assert.match(await loaderLog(), /catalog source unchanged/);
      await waitForRotation('both replicas in every gateway pod’s rotation', ['replica-1', 'replica-2']);
    },
  );

  step(
    'with both read replicas’ replay paused, an UPDATE made in psql reaches every gateway pod’s cached reads, REST and GraphQL, within the stated bound; the replicas behind it never bring the old row back',
    async () => {
      await sqlChangeReachesEveryPod(8, [`${name('postgresql-read')}-0`, `${name('postgresql-read')}-1`]);
    },
  );

  let tracePrefix: string;
  /** The traced k6 iterations every VU ran (the load stops when the step is done, not at a set count). */
  let tracedIterations: number[] = [];
  step(
    'k6 through the Service loses no request while a read replica and the Redis primary are deleted; reads reach the replicas, the replica rejoins every gateway pod, a write after the failover is served; pausing replay fires the lag alert, resuming clears it',
    async () => {
      tracePrefix = randomBytes(8).toString('hex');
      const load = await startK6({ vus: TRACED_VUS, duration: '360s', pauseSeconds: 0.05, uncachedReads: true, tracePrefix });
      let result: { summary: K6Summary; log: string };
      const started = Date.now();
      const at = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
      const timeline: string[] = [];
      try {
        // Reads reach both replicas.
        const initial = await statementsByTarget();
        await waitFor(
          'statements on both replicas under the k6 load',
          async () => {
            const now = await statementsByTarget();
            return now['replica-1']! > initial['replica-1']! && now['replica-2']! > initial['replica-2']! ? now : undefined;
          },
          30_000,
          1000,
        );
        const warm = await statementsByTarget();
        timeline.push(`${at()} statements by target so far: ${JSON.stringify(warm)}`);

        // replica-2's replay paused, and a write moves the primary past it.
        await psqlIn(`${name('postgresql-read')}-1`, 'SELECT pg_wal_replay_pause()');
        const paused = Date.now();
        await writeProduct(2, { slogan: 'Written while replica-2 replays nothing' });
        timeline.push(`${at()} replica-2 paused, a write moved the primary`);

        // replica-1's pod and the Redis primary's pod deleted at once.
        const redisPrimary = await redisPrimaryPod();
        const replicaPod = `${name('postgresql-read')}-0`;
        const failuresBefore = await replicaFailuresByPod('replica-1');
        const replicaUid = (await cluster.getJson(['pod', replicaPod, '-n', NAMESPACE])).metadata.uid;
        await cluster.kubectl(['delete', 'pod', '-n', NAMESPACE, replicaPod, redisPrimary, '--wait=false']);
        timeline.push(`${at()} deleted ${replicaPod} (replica-1) and ${redisPrimary} (the Redis primary)`);
        await waitFor(
          `${replicaPod} recreated and Ready`,
          async () => {
            const pod = await cluster.getJson(['pod', replicaPod, '-n', NAMESPACE]).catch(() => undefined);
            return pod && pod.metadata.uid !== replicaUid && podReady(pod) ? true : undefined;
          },
          120_000,
          1000,
        );
        timeline.push(`${at()} ${replicaPod} Ready again`);
        const newRedisPrimary = await waitFor(
          'the Sentinels to promote another Redis server',
          async () => {
            const primary = await redisPrimaryPod();
            return primary !== redisPrimary ? primary : undefined;
          },
          60_000,
          1000,
        );
        timeline.push(`${at()} Redis primary now ${newRedisPrimary}`);

        // Every gateway pod saw replica-1 go (its connections failed), and takes it back.
        const beforeRejoin = await statementsByTarget();
        await waitForRotation('replica-1 back in every gateway pod’s rotation', ['replica-1']);
        const failuresAfter = await replicaFailuresByPod('replica-1');
        const lag = [...(await gatewayMetrics()).values()].map((text) => metricValue(text, 'nodejs_eventloop_lag_max_seconds').toFixed(2));
        timeline.push(`${at()} the gateway pods' longest event-loop turn lately (s): ${lag.join(', ')}`);
        for (const [pod, failures] of failuresBefore) {
          if (failuresAfter.has(pod)) assert.ok(failuresAfter.get(pod)! > failures, `${pod} counted replica-1's failures`);
        }
        // Reads reach the new server: the gateways' pools connect to it only to send it statements.
        await waitFor(
          'statements on replica-1 again, from pooled connections to the new server',
          async () => {
            const sent = (await statementsByTarget())['replica-1']! > beforeRejoin['replica-1']!;
            const pooled = await psqlIn(replicaPod, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'catalog-gateway'");
            return sent && Number(pooled) > 0 ? true : undefined;
          },
          30_000,
          1000,
        );
        timeline.push(`${at()} replica-1 back in every gateway pod's rotation, reads reach it`);

        // A write after the failover is served new, through any gateway pod.
        const refused = await writeProduct(3, { name: 'Written after the Redis failover' });
        for (let read = 0; read < 10; read++) {
          const product = await httpInNamespace(`${await gatewayServiceUrl()}/products/3`);
          assert.equal(JSON.parse(product.body).name, 'Written after the Redis failover', `read ${read} after the write`);
        }
        timeline.push(`${at()} a write after the failover served by 10 reads (${refused} attempts refused while Redis settled)`);

        const fired = await waitFor('CatalogGatewayReplicaLagHigh firing for replica-2', () => lagAlert('firing'), 150_000, 2000);
        timeline.push(
          `${at()} CatalogGatewayReplicaLagHigh firing ${((Date.now() - paused) / 1000).toFixed(0)} s after the pause (${fired})`,
        );
        await psqlIn(`${name('postgresql-read')}-1`, 'SELECT pg_wal_replay_resume()');
        const resumed = Date.now();
        await waitFor('the lag alert cleared', async () => ((await lagAlert()) ? undefined : true), 60_000, 1000);
        timeline.push(`${at()} the alert cleared ${((Date.now() - resumed) / 1000).toFixed(0)} s after the resume`);
      } catch (error) {
        (error as Error).message += `\n\nread replicas as every gateway pod saw them:\n${await replicaDiagnostics()}`;
        throw error;
      } finally {
        result = await load.stop();
        console.log(`# HA timeline:\n#   ${timeline.join('\n#   ')}`);
      }
      const { summary, log } = result;
      const requests = summary.metrics.http_reqs.count;
      const failed = summary.metrics.http_req_failed.passes;
      tracedIterations = tracedIterationsOfEveryVu(summary.metrics.iterations.count, TRACED_VUS);
      console.log(
        `# during the replica and Redis primary deletions: ${requests} requests, ${failed} failed, ${summary.metrics.checks.fails} failed checks`,
      );
      console.log(`# statements by target over the run: ${JSON.stringify(await statementsByTarget())}`);
      assert.ok(requests > 500, `k6 sent ${requests} requests`);
      assert.equal(failed, 0, `failed requests:\n${log}`);
      assert.equal(summary.metrics.checks.fails, 0, `failed checks\n${log}`);
    },
  );

  step(
    'the k6 run’s traces in Jaeger: REST reads’ server spans and cache outcomes (hits among them), an uncached read’s SQL under its DataLoader batch',
    async () => {
      const service = await cluster.getJson(['service', name('jaeger'), '-n', NAMESPACE]);
      const jaeger = `http://${service.spec.clusterIP}:${service.spec.ports.find((port: any) => port.name === 'query').port}`;
      // A request's server span ends last, and a gateway exports spans in the order they end:
      // once it is in Jaeger, the whole trace is.
      const traced = (kind: 'rest' | 'uncached', vu: number, iteration: number) =>
        jaegerTrace(jaeger, tracedRequestId(tracePrefix, kind, vu, iteration), (trace) =>
          trace.spans.some((span) => tagOf(span, 'span.kind') === 'server'),
        );
      const outcomes: Record<string, number> = {};
      /** Per database server, the uncached reads whose trace holds their batch's SQL there. */
      const withSql: Record<string, string[]> = {};
      let joinedOthers = 0;
      /** The gateway pods the traced reads' resources name. */
      const servingPods = new Set<string>();
      const looked = tracedIterations.slice(0, 11);
      assert.ok(looked.length >= 3, `k6 ran too few iterations to trace: ${JSON.stringify(tracedIterations)}`);
      for (let vu = 1; vu <= TRACED_VUS; vu++) {
        for (const iteration of looked) {
          const restTrace = await traced('rest', vu, iteration);
          const rest = serverSpan(restTrace);
          assert.equal(rest.operationName, 'GET /products');
          // The resource names the pod that served it (the chart's downward API into OTEL_RESOURCE_ATTRIBUTES).
          const resource = Object.fromEntries((restTrace.processes[rest.processID]?.tags ?? []).map(({ key, value }) => [key, value]));
          assert.match(String(resource['k8s.pod.name']), new RegExp(`^${name('gateway')}-`), JSON.stringify(resource));
          assert.equal(resource['k8s.namespace.name'], NAMESPACE);
          assert.ok(resource['k8s.node.name'], `no k8s.node.name: ${JSON.stringify(resource)}`);
          servingPods.add(String(resource['k8s.pod.name']));
          assert.equal(tagOf(rest, 'http.response.status_code'), 200);
          const outcome = String(tagOf(rest, 'catalog.cache.outcome'));
          outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;

          const uncached = await traced('uncached', vu, iteration);
          const graphql = serverSpan(uncached);
          assert.equal(graphql.operationName, 'POST /graphql');
          assert.equal(tagOf(graphql, 'http.response.status_code'), 200);
          assert.equal(tagOf(graphql, 'catalog.cache.outcome'), 'miss');
          // A DataLoader batch concurrent requests share runs in the trace of the first traced
          // request that joined it: the SQL is there, under the batch; a traced read that joined
          // it later has none of its own.
          const statements = spansNamed(uncached, 'pg.query:*');
          for (const statement of statements) {
            assert.match(parentOf(uncached, statement)?.operationName ?? 'no parent', /^dataloader\.batch shared \w+$/);
          }
          if (statements.length === 0) joinedOthers++;
          for (const server of new Set(statements.map((statement) => String(tagOf(statement, 'server.address')).split('.')[0]!))) {
            (withSql[server] ??= []).push(uncached.traceID);
          }
        }
      }
      const traces = TRACED_VUS * looked.length;
      const sqlSummary = Object.entries(withSql).map(([server, ids]) => `${server} ×${ids.length} (e.g. ${ids[0]})`);
      console.log(
        `# traces found in Jaeger (prefix ${tracePrefix}): ${traces} REST reads, cache outcomes ${JSON.stringify(outcomes)}; ` +
          `${traces} uncached reads, ${traces - joinedOthers} holding their batch's SQL on ${sqlSummary.join(', ')}, ${joinedOthers} joined another traced read's batch; ` +
          `served by pods ${[...servingPods].join(', ')} (their k8s.pod.name)`,
      );
      assert.ok(joinedOthers < traces, 'an uncached read’s trace holds its SQL under its DataLoader batch');
      assert.ok(
        (outcomes.memory_hit ?? 0) + (outcomes.redis_hit ?? 0) > 0,
        `a traced read answered from the cache: ${JSON.stringify(outcomes)}`,
      );
    },
  );

  step('helm uninstall removes the workloads and the replicas’ PVCs, and leaves the Postgres PVC (retention policies)', async () => {
    await helm.ok(['uninstall', RELEASE, '--namespace', NAMESPACE, '--wait', '--timeout', HELM_TIMEOUT]);
    // Finished loader Job pods stay until the Job's TTL; nothing else of the release may run.
    await waitFor(
      'no running pods of the release left',
      async () => ((await pods('app.kubernetes.io/instance=shop')).every((pod) => pod.status.phase === 'Succeeded') ? true : undefined),
      120_000,
      1000,
    );
    const claim = await cluster.getJson(['pvc', `data-${name('postgresql')}-0`, '-n', NAMESPACE]);
    assert.equal(claim.status.phase, 'Bound');
    assert.equal(claim.spec.volumeName, postgresVolume);
    // The replicas' volumes are copies: they go with their StatefulSet.
    await waitFor(
      'the read replicas’ claims deleted',
      async () =>
        (await cluster.getJson(['pvc', '-n', NAMESPACE, '-l', 'app.kubernetes.io/component=postgresql-read'])).items.length === 0
          ? true
          : undefined,
      60_000,
      1000,
    );
  });

  // The dev loop: skaffold.yaml's local-podman profile, its release in its own namespace.
  let skaffold: ClusterSkaffold;
  const SKAFFOLD_NAMESPACE = 'catalog-gateway';
  const skaffoldGatewayUrl = () => serviceUrlIn(SKAFFOLD_NAMESPACE, 'catalog-gateway-gateway');
  const skaffoldGatewayPods = async () =>
    (await cluster.getJson(['pods', '-n', SKAFFOLD_NAMESPACE, '-l', GATEWAY_PODS])).items.filter(
      (pod: any) => !pod.metadata.deletionTimestamp,
    );

  step(
    'skaffold run --profile local-podman: podman builds both Dockerfiles, pushes to the registry in the namespace, the chart deploys, the gateway answers',
    async () => {
      skaffold = new ClusterSkaffold(cluster, VALUES);
      const result = await skaffold.run('run', ['--status-check=true']);
      assert.equal(result.code, 0, `skaffold run failed\n${result.stderr.slice(-4000)}\n${result.stdout.slice(-4000)}`);

      const catalog = JSON.parse(await cluster.netns.runOk('curl', ['-sf', `http://${NODE.registry.listen}/v2/_catalog`]));
      assert.deepEqual(catalog.repositories.sort(), ['catalog-gateway', 'catalog-loader']);
      const gatewayPods = await skaffoldGatewayPods();
      assert.ok(gatewayPods.length >= VALUES.gateway.autoscaling.minReplicas, `${gatewayPods.length} gateway pods`);
      for (const pod of gatewayPods) {
        assert.match(pod.spec.containers[0].image, /^localhost:5000\/catalog-gateway:[0-9a-f]+$/);
        // Pulled from the registry: the node knows the image by its digest there.
        assert.match(pod.status.containerStatuses[0].imageID, /^localhost:5000\/catalog-gateway@sha256:/);
        assert.equal(pod.status.containerStatuses[0].ready, true);
      }
      const job = await cluster.getJson(['job', 'catalog-gateway-loader', '-n', SKAFFOLD_NAMESPACE]);
      assert.equal(job.spec.template.spec.containers[0].image.startsWith('localhost:5000/catalog-loader:'), true);
      assert.equal(job.status.succeeded, 1);
      const product = await httpInNamespace(`${await skaffoldGatewayUrl()}/products/1`);
      assert.equal(product.status, 200, product.body);
      assert.equal(JSON.parse(product.body).id, 1);
    },
  );

  step(
    'skaffold dev: a change to a gateway source file rebuilds the gateway image and redeploys; the new pods serve the change',
    async () => {
      const base = await skaffoldGatewayUrl();
      const description: string = JSON.parse((await httpInNamespace(`${base}/docs/json`)).body).info.description;
      const [before] = await skaffoldGatewayPods();
      const dev = skaffold.start('dev', ['--port-forward=off', '--cleanup=false']);
      try {
        await waitFor(
          'skaffold dev watching for changes',
          async () => {
            if (!dev.running) throw new Error(`skaffold dev exited\n${dev.logTail(40)}`);
            return dev.output.includes('Watching for changes') ? true : undefined;
          },
          300_000,
          1000,
        );
        // The served OpenAPI description, changed where the source defines it.
        const changed = `${description} Changed under skaffold dev.`;
        const source = findSourceFile(join(skaffold.dir, 'gateway/src'), description);
        writeFileSync(source, readFileSync(source, 'utf8').replace(description, changed));
        const changedAt = Date.now();
        await waitFor(
          'new gateway pods, from a new image, serving the change',
          async () => {
            if (!dev.running) throw new Error(`skaffold dev exited\n${dev.logTail(40)}`);
            const pods = await skaffoldGatewayPods();
            const rebuilt =
              pods.length >= 2 &&
              pods.every(
                (pod: any) => pod.spec.containers[0].image !== before.spec.containers[0].image && pod.status.containerStatuses?.[0]?.ready,
              );
            if (!rebuilt) return undefined;
            const docs = await httpInNamespace(`${base}/docs/json`);
            return JSON.parse(docs.body).info.description === changed ? true : undefined;
          },
          480_000,
          2000,
        );
        console.log(`# skaffold dev: change saved → rebuilt, redeployed and served in ${((Date.now() - changedAt) / 1000).toFixed(0)} s`);
      } catch (error) {
        (error as Error).message += `\n${dev.logTail(40)}`;
        throw error;
      } finally {
        await dev.stop(30_000);
      }
    },
  );
});

/** The one file under dir whose text contains `text`. */
function findSourceFile(dir: string, text: string): string {
  const files = (readdirSync(dir, { recursive: true }) as string[])
    .map((file) => join(dir, file))
    .filter((file) => file.endsWith('.ts') && readFileSync(file, 'utf8').includes(text));
  if (files.length !== 1) throw new Error(`expected one file under ${dir} with ${JSON.stringify(text)}, found ${files.join(', ')}`);
  return files[0]!;
}

/** A query run by psql inside the Postgres primary's pod, unaligned output. */
const psql = (sql: string) => psqlIn(`${name('postgresql')}-0`, sql);

/** A query run by psql inside a Postgres pod (the primary or a replica), unaligned output. */
async function psqlIn(pod: string, sql: string): Promise<string> {
  return cluster.kubectl(['exec', '-n', NAMESPACE, pod, '--', 'psql', '-U', 'catalog', '-d', 'catalog', '-At', '-c', sql]);
}

/** Product 1 as the legacy REST route shapes it (key order included), built by Postgres. */
const PRODUCT_1_AS_ATELIER_JSON = `
  SELECT json_build_object(
    'id', p.id, 'campus', p.campus, 'name', p.name, 'slogan', p.slogan, 'description', p.description,
    'category', p.category, 'default_price', p.default_price::text,
    'created_at', to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updated_at', to_char(p.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'features', coalesce((SELECT json_agg(json_build_object('feature', f.feature, 'value', f.value) ORDER BY f.id)
                          FROM catalog.features f WHERE f.product_id = p.id), '[]'))
  FROM catalog.products p WHERE p.id = 1`;

/** Run by the gateway image's node inside a gateway container: identity, privileges, writes. */
const INSIDE_THE_CONTAINER = String.raw`
  const fs = require('node:fs');
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  const field = (name) => status.match(new RegExp('^' + name + ':\\s*(\\S+)', 'm'))[1];
  const tryWrite = (path) => { try { fs.writeFileSync(path, 'x'); fs.rmSync(path); return 'ok'; } catch (e) { return e.code; } };
  console.log(JSON.stringify({
    uid: process.getuid(), gid: process.getgid(), capEff: field('CapEff'), noNewPrivs: field('NoNewPrivs'),
    rootWrite: tryWrite('/probe'), appWrite: tryWrite(process.cwd() + '/probe'), tmpWrite: tryWrite('/tmp/probe'),
  }));`;

const gatewayServiceUrl = () => serviceUrl('gateway');

interface InNamespaceRequest {
  /** Default: POST with a JSON body, GET without. */
  method?: string;
  json?: object;
  /** Sent as `Authorization: Bearer <token>` (the chart's gateway.writeToken for writes). */
  token?: string;
}

/** An HTTP request from inside the cluster's network namespace. */
async function httpInNamespace(url: string, request: InNamespaceRequest = {}): Promise<{ status: number; body: string }> {
  const method = request.method ?? (request.json ? 'POST' : 'GET');
  const body = request.json ? ['-H', 'content-type: application/json', '--data-binary', JSON.stringify(request.json)] : [];
  const auth = request.token ? ['-H', `authorization: Bearer ${request.token}`] : [];
  const result = await cluster.netns.runOk('curl', [
    '-sS',
    '--max-time',
    '10',
    '-w',
    '\n%{http_code}',
    '-X',
    method,
    ...body,
    ...auth,
    url,
  ]);
  const cut = result.lastIndexOf('\n');
  return { body: result.slice(0, cut), status: Number(result.slice(cut + 1)) };
}

const serviceUrl = (component: string) => serviceUrlIn(NAMESPACE, name(component));

async function serviceUrlIn(namespace: string, serviceName: string): Promise<string> {
  const service = await cluster.getJson(['service', serviceName, '-n', namespace]);
  return `http://${service.spec.clusterIP}:${service.spec.ports[0].port}`;
}

/** A Prometheus HTTP API call through its Service; the `data` of a successful answer. */
async function prometheusApi(base: string, path: string): Promise<any> {
  const response = await httpInNamespace(`${base}${path}`);
  const body = JSON.parse(response.body);
  if (body.status !== 'success') throw new Error(`Prometheus ${path}: ${response.body}`);
  return body.data;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface K6Summary {
  metrics: {
    http_reqs: { count: number };
    iterations: { count: number };
    /** A rate metric: `passes` counts the requests that failed. */
    http_req_failed: { passes: number; fails: number };
    checks: { passes: number; fails: number };
  };
}

/** With a trace prefix, k6 traces every TRACE_EVERY-th iteration of each VU (service-load.js). */
const TRACE_EVERY = 50;
/** The VUs of the traced k6 run. */
const TRACED_VUS = 4;

/**
 * The traced iterations (numbered from 0, as `__ITER`) every one of `vus` VUs ran, from the
 * run's total: VUs looping over the same requests keep about the same pace, and one that ran
 * fewer than its share is allowed TRACE_EVERY fewer.
 */
function tracedIterationsOfEveryVu(total: number, vus: number): number[] {
  const ran = Math.floor(total / vus) - TRACE_EVERY;
  return Array.from({ length: Math.max(0, Math.ceil(ran / TRACE_EVERY)) }, (_, index) => index * TRACE_EVERY);
}

/**
 * k6 (from the tools dir) inside the namespace against the gateway Service, in the background;
 * stop() ends it early (k6 writes its summary on SIGTERM) and returns the summary.
 */
async function startK6(load: { vus: number; duration: string; pauseSeconds: number; uncachedReads?: boolean; tracePrefix?: string }) {
  const summaryFile = join(cluster.dir, `k6-summary-${Date.now()}.json`);
  const [command, args] = cluster.inNamespace(requireTool('k6'), [
    'run',
    '--no-usage-report',
    '--quiet',
    '--summary-export',
    summaryFile,
    K6_SCRIPT,
  ]);
  const k6 = new GroupProcess('k6', command, args, join(cluster.dir, 'logs', 'k6.log'), {
    env: {
      ...process.env,
      BASE_URL: await gatewayServiceUrl(),
      VUS: String(load.vus),
      DURATION: load.duration,
      PAUSE_SECONDS: String(load.pauseSeconds),
      ...(load.uncachedReads ? { UNCACHED_READS: '1' } : {}),
      ...(load.tracePrefix ? { TRACE_ID_PREFIX: load.tracePrefix, TRACE_EVERY: String(TRACE_EVERY) } : {}),
    },
  });
  return {
    /** The summary, and k6's warnings: the script logs every failed request with what it got. */
    stop: async (): Promise<{ summary: K6Summary; log: string }> => {
      await k6.stop(30_000);
      if (!existsSync(summaryFile)) throw new Error(`k6 wrote no summary\n${k6.logTail()}`);
      const warnings = k6.output.split('\n').filter((line) => line.includes('level=warn'));
      return { summary: JSON.parse(readFileSync(summaryFile, 'utf8')) as K6Summary, log: warnings.join('\n') };
    },
  };
}

const podReady = (pod: any): boolean => pod.status.phase === 'Running' && pod.status.containerStatuses?.every((c: any) => c.ready);

/** A gateway pod's /metrics URL (its metrics port, from the node's network namespace). */
function metricsUrlOf(pod: any): string {
  const port = pod.spec.containers[0].ports.find((candidate: any) => candidate.name === 'metrics').containerPort;
  return `http://${pod.status.podIP}:${port}/metrics`;
}

/** Each ready gateway pod's /metrics. */
async function gatewayMetrics(): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const pod of (await pods(GATEWAY_PODS)).filter(podReady)) {
    texts.set(pod.metadata.name, await cluster.netns.runOk('curl', ['-sf', '--max-time', '5', metricsUrlOf(pod)]));
  }
  return texts;
}

const READ_TARGETS = ['primary', 'replica-1', 'replica-2'];

/** Statements each database target was sent, summed over the gateway pods (catalog_db_statements_total). */
async function statementsByTarget(): Promise<Record<string, number>> {
  const texts = [...(await gatewayMetrics()).values()];
  return Object.fromEntries(
    READ_TARGETS.map((target) => [
      target,
      texts.reduce((sum, text) => sum + metricValue(text, `catalog_db_statements_total{target="${target}"}`), 0),
    ]),
  );
}

/** Failures each ready gateway pod counted for `target` (catalog_db_target_failures_total, every operation). */
async function replicaFailuresByPod(target: string): Promise<Map<string, number>> {
  const failures = new Map<string, number>();
  for (const [pod, text] of await gatewayMetrics()) {
    const operations = ['statement', 'connection', 'poll'];
    failures.set(
      pod,
      operations.reduce(
        (sum, operation) => sum + metricValue(text, `catalog_db_target_failures_total{target="${target}",operation="${operation}"}`),
        0,
      ),
    );
  }
  return failures;
}

/** Waits until every ready gateway pod has `replicas` in its rotation (catalog_db_in_rotation). */
async function waitForRotation(what: string, replicas: string[]): Promise<void> {
  await waitFor(
    what,
    async () => {
      const texts = [...(await gatewayMetrics()).values()];
      const inRotation = (text: string) =>
        replicas.every((replica) => metricValue(text, `catalog_db_in_rotation{target="${replica}"}`) === 1);
      return texts.length >= 2 && texts.every(inRotation) ? true : undefined;
    },
    90_000,
    1000,
  ).catch(async (error: Error) => {
    error.message += `\n\nread replicas as every gateway pod saw them:\n${await replicaDiagnostics()}`;
    throw error;
  });
}

/**
 * What each gateway pod said of its read replicas: its log lines on joining and leaving the
 * rotation (with why), and its catalog_db_* series of the rotation, lag, failures and fallbacks.
 */
async function replicaDiagnostics(): Promise<string> {
  const series = /^catalog_db_(in_rotation|replay_lag_seconds|target_failures_total|replica_fallbacks_total|statements_total)\{/;
  const reports: string[] = [];
  for (const pod of await pods(GATEWAY_PODS)) {
    const podName = pod.metadata.name;
    const logs = await cluster.kubectlResult(['logs', '-n', NAMESPACE, podName]);
    const rotation = logs.stdout.split('\n').filter((line) => line.includes('"read replica'));
    const metrics = podReady(pod) ? await cluster.netns.run('curl', ['-sf', '--max-time', '5', metricsUrlOf(pod)]) : undefined;
    const values = metrics?.stdout.split('\n').filter((line) => series.test(line)) ?? ['(not ready: no metrics)'];
    reports.push(`--- ${podName} (started ${pod.status.startTime})\n${rotation.slice(-30).join('\n')}\n${values.join('\n')}`);
  }
  return reports.join('\n');
}

/** A write through the Service (PUT /products/:id with the write token); returns how many attempts Redis refused (503) first. */
async function writeProduct(id: number, fields: object): Promise<number> {
  let refused = 0;
  await waitFor(
    `PUT /products/${id} answered 200`,
    async () => {
      const response = await httpInNamespace(`${await gatewayServiceUrl()}/products/${id}`, {
        method: 'PUT',
        json: fields,
        token: VALUES.gateway.writeToken,
      });
      if (response.status === 503) {
        refused++;
        return undefined;
      }
      assert.equal(response.status, 200, response.body);
      return true;
    },
    30_000,
    500,
  );
  return refused;
}

/** The pod of the Redis server the Sentinels name as the primary. */
async function redisPrimaryPod(): Promise<string> {
  const answer = await cluster.kubectl([
    'exec',
    '-n',
    NAMESPACE,
    `${name('redis-sentinel')}-0`,
    '--',
    'redis-cli',
    '-p',
    '26379',
    '--raw',
    'SENTINEL',
    'get-master-addr-by-name',
    // redis.sentinel.masterSet, the chart's default.
    'catalog',
  ]);
  const host = answer.split('\n')[0]!;
  if (!host.startsWith(name('redis'))) throw new Error(`the Sentinel names no Redis server of the release: ${answer}`);
  return host.split('.')[0]!;
}

/** The CatalogGatewayReplicaLagHigh alert for replica-2 in the cluster's Prometheus (in `state`, if given), as text; undefined when there is none. */
async function lagAlert(state?: 'firing'): Promise<string | undefined> {
  const { alerts } = await prometheusApi(await serviceUrl('prometheus'), '/api/v1/alerts');
  const alert = alerts.find(
    (candidate: any) =>
      candidate.labels.alertname === 'CatalogGatewayReplicaLagHigh' &&
      candidate.labels.target === 'replica-2' &&
      (state === undefined || candidate.state === state),
  );
  return alert && `${alert.state} on ${alert.labels.instance}, value ${alert.value}`;
}

/** The trace id k6 sent (service-load.js) on the `kind` request of a VU's iteration. */
function tracedRequestId(prefix: string, kind: 'rest' | 'uncached', vu: number, iteration: number): string {
  const spanId = `${kind === 'rest' ? '01' : '02'}${vu.toString(16).padStart(6, '0')}${iteration.toString(16).padStart(8, '0')}`;
  return `${prefix}${spanId}`;
}

/** A trace from Jaeger's query API (its spans arrive in batches: waits until `complete` holds). */
async function jaegerTrace(base: string, traceId: string, complete: (trace: JaegerTrace) => boolean = () => true): Promise<JaegerTrace> {
  return waitFor(
    `trace ${traceId} in Jaeger`,
    async () => {
      const response = await httpInNamespace(`${base}/api/traces/${traceId}`);
      if (response.status === 404) return undefined;
      assert.equal(response.status, 200, response.body);
      const trace: JaegerTrace | undefined = JSON.parse(response.body).data?.[0];
      return trace && complete(trace) ? trace : undefined;
    },
    30_000,
    1000,
  );
}

/** The gateway's server span of a trace (the caller's span, k6's, is not in it). */
function serverSpan(trace: JaegerTrace) {
  const servers = trace.spans.filter((span) => tagOf(span, 'span.kind') === 'server');
  assert.equal(servers.length, 1, `one server span in ${trace.traceID}: ${trace.spans.map((span) => span.operationName).join(', ')}`);
  return servers[0]!;
}

/**
 * The bound gateway/README.md states for a change made in the database without the gateway
 * ("Consistency", rule 11: "The bound is N s from the commit"), in ms.
 */
function captureBoundMs(): number {
  const readme = readFileSync(fileURLToPath(new URL('../../gateway/README.md', import.meta.url)), 'utf8');
  const stated = readme.match(/\*\*The bound is (\d+(?:\.\d+)?) s from the commit\*\*/);
  if (!stated) throw new Error('gateway/README.md states no bound for captured changes ("The bound is N s from the commit")');
  return Number(stated[1]) * 1000;
}

/** After a captured change is visible on every pod, how long every read keeps being checked. */
const WATCH_AFTER_CHANGE_MS = 2_000;

/** A gateway pod's public port, straight to the pod (not through the Service). */
function baseUrlOf(pod: any): string {
  const port = pod.spec.containers[0].ports.find((candidate: any) => candidate.name === 'http').containerPort;
  return `http://${pod.status.podIP}:${port}`;
}

/** One way to read a product's name from one gateway pod. */
interface PodRead {
  label: string;
  read(pod: any, id: number): Promise<string>;
}

const PRODUCT_NAME_QUERY = 'query ProductName($id: ID!) { product(id: $id) { id name } }';

async function graphqlProductName(pod: any, query: string, id: number): Promise<string> {
  const response = await httpInNamespace(`${baseUrlOf(pod)}/graphql`, { json: { query, variables: { id: String(id) } } });
  assert.equal(response.status, 200, `${pod.metadata.name}: ${response.body}`);
  const answer = JSON.parse(response.body);
  assert.equal(answer.errors, undefined, `${pod.metadata.name}: ${response.body}`);
  return answer.data.product.name;
}

/** The reads the response cache keeps: REST GET /products/:id and a GraphQL query. */
const CACHED_POD_READS: PodRead[] = [
  {
    label: 'REST',
    async read(pod, id) {
      const response = await httpInNamespace(`${baseUrlOf(pod)}/products/${id}`);
      assert.equal(response.status, 200, `${pod.metadata.name}: ${response.body}`);
      return JSON.parse(response.body).name;
    },
  },
  { label: 'GraphQL', read: (pod, id) => graphqlProductName(pod, PRODUCT_NAME_QUERY, id) },
];

let freshDocuments = 0;
/** A GraphQL document no cache has seen (a new operation name each time): a read from a database, a replica when one is in the rotation. */
const UNCACHED_POD_READ: PodRead = {
  label: 'GraphQL uncached',
  read: (pod, id) => graphqlProductName(pod, `query Uncached${++freshDocuments}($id: ID!) { product(id: $id) { id name } }`, id),
};

const MEMORY_HITS = 'catalog_cache_lookups_total{backend="memory",result="hit"}';
const REDIS_HITS = 'catalog_cache_lookups_total{backend="redis",result="hit"}';

const podMetrics = (pod: any) => cluster.netns.runOk('curl', ['-sf', '--max-time', '5', metricsUrlOf(pod)]);

/**
 * Reads `id` on `pod` until one read is answered from the pod's in-process cache: its /metrics
 * count a memory hit for that read alone (nothing else reads the pod meanwhile). Returns the
 * tier that answered each read (database, redis, memory).
 */
async function cacheOnPod(pod: any, read: PodRead, id: number, expected: string): Promise<string[]> {
  const tiers: string[] = [];
  return waitFor(
    `${pod.metadata.name} answering ${read.label} product ${id} from its memory`,
    async () => {
      const before = await podMetrics(pod);
      assert.equal(await read.read(pod, id), expected, `${read.label} on ${pod.metadata.name}`);
      const after = await podMetrics(pod);
      const tier =
        metricValue(after, MEMORY_HITS) > metricValue(before, MEMORY_HITS)
          ? 'memory'
          : metricValue(after, REDIS_HITS) > metricValue(before, REDIS_HITS)
            ? 'redis'
            : 'database';
      tiers.push(tier);
      return tier === 'memory' ? tiers : undefined;
    },
    30_000,
    200,
  );
}

/** The capture triggers on the served catalog (contract/sql/capture-triggers.sql: 4 on each of 6 tables), and the change log. */
async function assertCaptureInstalled(): Promise<void> {
  const triggers = await psql(`
    SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'catalog' AND t.tgname IN ('capture_insert', 'capture_update', 'capture_delete', 'capture_truncate')`);
  assert.equal(triggers.trim(), '24', 'the loader installed the capture triggers on the catalog in service');
  assert.equal((await psql('SELECT count(*) FROM catalog_capture.changes')).trim(), '0', 'nothing waits in the change log');
}

/** Sums a series over the ready gateway pods, and each pod's value. */
async function seriesByPod(series: string): Promise<{ total: number; byPod: Record<string, number> }> {
  const byPod: Record<string, number> = {};
  for (const [pod, text] of await gatewayMetrics()) byPod[pod] = metricValue(text, series);
  return { total: Object.values(byPod).reduce((a, b) => a + b, 0), byPod };
}

/**
 * Issue 38: a product every gateway pod answers from its in-process cache, REST and GraphQL, is
 * renamed by psql inside the Postgres pod (not through a gateway). Every pod, read straight at its
 * pod IP, must serve the new name within the bound gateway/README.md states, measured from the
 * UPDATE's own clock_timestamp() (before its commit: the delays are upper bounds) on the node's
 * one clock, and keep serving it. With `pausedReplicas`, their replay is paused across the change:
 * reads that miss after it land on a replica that has not replayed it, and must not bring the old
 * name back (rule 8: read again on the primary, counted as behind_writes).
 */
async function sqlChangeReachesEveryPod(id: number, pausedReplicas: string[] = []): Promise<void> {
  const bound = captureBoundMs();
  await assertCaptureInstalled();
  const gatewayPods = (await pods(GATEWAY_PODS)).filter(podReady);
  assert.ok(gatewayPods.length >= 2, `${gatewayPods.length} ready gateway pods`);
  const before = (await psql(`SELECT name FROM catalog.products WHERE id = ${id}`)).trim();
  const changed = `Renamed in psql ${randomBytes(3).toString('hex')}`;

  const cachedBy: string[] = [];
  for (const pod of gatewayPods) {
    for (const read of CACHED_POD_READS) {
      const tiers = await cacheOnPod(pod, read, id, before);
      cachedBy.push(`${pod.metadata.name} ${read.label}: ${tiers.join(' → ')}`);
    }
  }
  console.log(`# product ${id} cached on every gateway pod (tier of each read):\n#   ${cachedBy.join('\n#   ')}`);

  const reads = pausedReplicas.length > 0 ? [...CACHED_POD_READS, UNCACHED_POD_READ] : CACHED_POD_READS;
  const probes = gatewayPods.flatMap((pod) => reads.map((read) => ({ pod, read, key: `${pod.metadata.name} ${read.label}` })));
  const entriesBefore = await seriesByPod('catalog_capture_entries_total{kind="changes"}');
  const behindWrites = 'catalog_db_replica_fallbacks_total{reason="behind_writes"}';
  const behindBefore = await seriesByPod(behindWrites);

  for (const replica of pausedReplicas) await psqlIn(replica, 'SELECT pg_wal_replay_pause()');
  try {
    // Every probe is read round after round, from before the UPDATE until WATCH_AFTER_CHANGE_MS
    // after the last one showed the new name: when each first did, and any that went back.
    const newSince = new Map<string, number>();
    const wentBack: string[] = [];
    let rounds = 0;
    let updated = false;
    let abandoned = false;
    const watchStarted = Date.now();
    const watching = (async () => {
      while (!abandoned) {
        // Each answer timed when it arrived: a delay is an upper bound by that read's own round trip.
        const answers = await Promise.all(
          probes.map(async (probe) => ({ probe, name: await probe.read.read(probe.pod, id), answeredAt: Date.now() })),
        );
        const at = Date.now();
        rounds++;
        for (const { probe, name: seen, answeredAt } of answers) {
          if (seen === changed) {
            if (!newSince.has(probe.key)) newSince.set(probe.key, answeredAt);
          } else if (seen !== before) {
            throw new Error(
              `${probe.key} answered ${JSON.stringify(seen)}, neither ${JSON.stringify(before)} nor ${JSON.stringify(changed)}`,
            );
          } else if (newSince.has(probe.key)) {
            wentBack.push(`${probe.key} answered the old name again ${answeredAt - newSince.get(probe.key)!} ms after the new one`);
          }
        }
        const last = Math.max(...newSince.values());
        if (updated && newSince.size === probes.length && at - last >= WATCH_AFTER_CHANGE_MS) return;
        if (at - watchStarted > 60_000)
          throw new Error(`not every read showed the change within 60 s: ${[...newSince.keys()].join(', ')} did`);
      }
    })();
    watching.catch(() => undefined); // awaited below, after the UPDATE
    // The reads run while the UPDATE is sent: a slow `kubectl exec` does not delay them.
    const sent = Date.now();
    let statementAt: number;
    try {
      const answer = await psqlIn(
        `${name('postgresql')}-0`,
        `UPDATE catalog.products SET name = '${changed}' WHERE id = ${id} RETURNING (extract(epoch FROM clock_timestamp()) * 1000)::bigint`,
      );
      statementAt = Number(answer.split('\n')[0]);
      assert.ok(statementAt >= sent - 1000, `the UPDATE's clock_timestamp(): ${answer}`);
    } catch (error) {
      abandoned = true;
      throw error;
    }
    updated = true;
    const execMs = Date.now() - sent;
    await watching;

    const delays = probes.map((probe) => ({ key: probe.key, ms: newSince.get(probe.key)! - statementAt }));
    const rows = gatewayPods.map((pod) => {
      const own = delays.filter((delay) => delay.key.startsWith(`${pod.metadata.name} `));
      return `${pod.metadata.name}: ${Math.max(...own.map((delay) => delay.ms))} ms (${own.map((delay) => `${delay.key.slice(pod.metadata.name.length + 1)} ${delay.ms}`).join(', ')})`;
    });
    console.log(
      `# UPDATE in psql (kubectl exec ${execMs} ms) to the new name on every pod, from the statement's clock_timestamp(), bound ${bound} ms, ` +
        `${rounds} rounds of ${probes.length} reads (${Math.round((Date.now() - watchStarted) / rounds)} ms a round):\n#   ${rows.join('\n#   ')}`,
    );
    assert.deepEqual(wentBack, [], 'a read went back to the old name');
    for (const delay of delays)
      assert.ok(delay.ms <= bound, `${delay.key}: the change showed after ${delay.ms} ms, over the ${bound} ms bound`);
  } finally {
    for (const replica of pausedReplicas) await psqlIn(replica, 'SELECT pg_wal_replay_resume()');
  }

  // One gateway claimed the entry for the fleet and deleted it once every pod let go.
  await waitFor(
    'the change log empty',
    async () => ((await psql('SELECT count(*) FROM catalog_capture.changes')).trim() === '0' ? true : undefined),
    10_000,
    250,
  );
  const entriesAfter = await seriesByPod('catalog_capture_entries_total{kind="changes"}');
  const announced = Object.entries(entriesAfter.byPod).map(([pod, count]) => `${pod} ${count - (entriesBefore.byPod[pod] ?? 0)}`);
  console.log(`# change-log entries announced, by pod: ${announced.join(', ')}`);
  assert.ok(entriesAfter.total > entriesBefore.total, 'a gateway pod claimed and announced the change (catalog_capture_entries_total)');
  if (pausedReplicas.length > 0) {
    const behindAfter = await seriesByPod(behindWrites);
    const fellBack = Object.entries(behindAfter.byPod).map(([pod, count]) => `${pod} ${count - (behindBefore.byPod[pod] ?? 0)}`);
    console.log(
      `# reads found a paused replica behind the change and were read again on the primary (behind_writes), by pod: ${fellBack.join(', ')}`,
    );
    assert.ok(behindAfter.total > behindBefore.total, 'no read found a paused replica behind the change');
  }
}
