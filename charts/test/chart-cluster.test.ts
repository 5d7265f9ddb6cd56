// The chart on a real API server (etcd + kube-apiserver + controller-manager + scheduler, kwok
// simulating nodes and pods): server-side validation, then install, test, upgrade, a failing
// loader hook with rollback, and uninstall. Pods never run containers: this proves the
// Kubernetes objects and their wiring, not the images.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { CHART_DIR, Helm, NAMESPACE, RELEASE, REPO_ROOT, VALUE_SETS } from './support/chart.js';
import { TestCluster } from './support/cluster.js';
import { createNamespace } from './support/namespace.js';
import { waitFor } from '../../scripts/test/wait.js';

/** Release-wide values for the cluster run: small loads, loader Jobs expiring quickly. */
const INSTALL_VALUES = {
  gateway: { image: { tag: '1.0.0' } },
  loader: { image: { tag: '1.0.0' }, ttlSecondsAfterFinished: 30 },
};
const HELM_TIMEOUT = '120s';
const name = (component: string) => `${RELEASE}-catalog-gateway-${component}`;

let cluster: TestCluster;
let helm: Helm;
/** The install's loader Job (it may have expired by the time the upgrade runs). */
let installLoaderUid: string;
/** The Postgres data volume of the first install, and its passwords. */
let postgresVolume: string;
let installedPasswords: string[];

/** Runs a check; a failure carries the control plane's log tails (the API server's first). */
async function withClusterLogs(check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (error) {
    (error as Error).message += `\n\ncontrol plane logs:\n${cluster.logTails()}`;
    throw error;
  }
}

const step = (title: string, check: () => Promise<void>) => test(title, () => withClusterLogs(check));

async function helmDeploy(command: 'install' | 'upgrade', values: object) {
  return helm.run(helm.deployArgs(command, values, HELM_TIMEOUT));
}

async function releaseStatus(): Promise<{ version: number; info: { status: string } }> {
  return JSON.parse(await helm.ok(['status', RELEASE, '--namespace', NAMESPACE, '-o', 'json']));
}

async function gatewayPodImages(): Promise<string[]> {
  const pods = await cluster.getJson(['pods', '-n', NAMESPACE, '-l', 'app.kubernetes.io/component=gateway']);
  return pods.items.filter((p: any) => !p.metadata.deletionTimestamp).map((p: any) => p.spec.containers[0].image);
}

/** Waits for the gateway rollout, then for both gateway pods (and no other) to run image `tag`. */
async function waitForGatewayRollout(tag: string, what: string): Promise<void> {
  await cluster.kubectl(['rollout', 'status', `deployment/${name('gateway')}`, '-n', NAMESPACE, '--timeout=60s']);
  await waitFor(
    what,
    async () => {
      const images = await gatewayPodImages();
      return images.length === 2 && images.every((image) => image === `catalog-gateway:${tag}`) ? true : undefined;
    },
    60_000,
    500,
  );
}

/** A password the chart generated, from its Secret (`postgresql` → POSTGRES_PASSWORD, `redis` → REDIS_PASSWORD). */
async function storedPassword(component: 'postgresql' | 'redis'): Promise<string> {
  const secret = await cluster.getJson(['secret', name(component), '-n', NAMESPACE]);
  return Buffer.from(secret.data[component === 'postgresql' ? 'POSTGRES_PASSWORD' : 'REDIS_PASSWORD'], 'base64').toString();
}
const postgresPassword = () => storedPassword('postgresql');

/** The loader Job's uid and the fingerprint of the catalog source its load container was given. */
async function loaderRun(): Promise<{ uid: string; fingerprint: string }> {
  const job = await cluster.getJson(['job', name('loader'), '-n', NAMESPACE]);
  const args: string[] = job.spec.template.spec.containers[0].args;
  return { uid: job.metadata.uid, fingerprint: args[args.indexOf('--skip-if-source-unchanged') + 1]! };
}

before(async () => {
  cluster = await TestCluster.start({ nodes: 2, persistentVolumes: 6 });
  helm = new Helm(cluster.kubeconfig);
  await createNamespace(cluster, NAMESPACE);
});

after(async () => {
  await cluster?.stop();
  helm?.cleanup();
});

describe('server-side dry run: the API server accepts every value set and rejects broken objects', () => {
  for (const [valueSet, values] of Object.entries(VALUE_SETS)) {
    step(`kubectl apply --dry-run=server accepts: ${valueSet}`, async () => {
      const manifests = await helm.template(values);
      const output = await cluster.kubectl(['apply', '--dry-run=server', '-n', NAMESPACE, '-f', '-'], manifests);
      assert.match(output, /deployment.apps\/shop-catalog-gateway-gateway created \(server dry run\)/);
    });
  }

  step('and refuses a misspelt field, which helm itself lets through', async () => {
    const manifests = (await helm.template({})).replace('averageUtilization:', 'averageUtilisation:');
    const result = await cluster.kubectlResult(['apply', '--dry-run=server', '-n', NAMESPACE, '-f', '-'], manifests);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /unknown field "spec.metrics\[0\].resource.target.averageUtilisation"/);
  });
});

describe('helm install, test, upgrade, failing hook + rollback, uninstall', () => {
  step('helm install --wait --wait-for-jobs succeeds', async () => {
    const result = await helmDeploy('install', INSTALL_VALUES);
    assert.equal(result.code, 0, `${result.stderr}\n${result.stdout}`);
    assert.equal((await releaseStatus()).info.status, 'deployed');
  });

  step('the loader hook Job ran to completion', async () => {
    const job = await cluster.getJson(['job', name('loader'), '-n', NAMESPACE]);
    assert.equal(job.status.succeeded, 1);
    assert.ok(job.status.conditions.some((c: any) => c.type === 'Complete' && c.status === 'True'));
    installLoaderUid = job.metadata.uid;
  });

  step('every Deployment is Available with all its replicas', async () => {
    const deployments = await cluster.getJson(['deployments', '-n', NAMESPACE]);
    assert.deepEqual(
      deployments.items.map((d: any) => d.metadata.name).sort(),
      ['gateway', 'grafana', 'kube-state-metrics', 'prometheus', 'redis'].map(name),
    );
    for (const deployment of deployments.items) {
      const available = deployment.status.conditions.find((c: any) => c.type === 'Available');
      assert.equal(available?.status, 'True', deployment.metadata.name);
      assert.equal(deployment.status.availableReplicas, deployment.spec.replicas, deployment.metadata.name);
    }
  });

  step('the Postgres StatefulSet is ready and its data PVC is Bound', async () => {
    const statefulSet = await cluster.getJson(['statefulset', name('postgresql'), '-n', NAMESPACE]);
    assert.equal(statefulSet.status.readyReplicas, 1);
    const claim = await cluster.getJson(['pvc', `data-${name('postgresql')}-0`, '-n', NAMESPACE]);
    assert.equal(claim.status.phase, 'Bound');
    postgresVolume = claim.spec.volumeName;
    assert.ok((await postgresPassword()).length >= 32, 'a generated Postgres password');
    assert.ok((await storedPassword('redis')).length >= 32, 'a generated Redis password');
  });

  step('the HPA is accepted and acted on: it scales the gateway up to minReplicas', async () => {
    const hpa = await cluster.getJson(['hpa', name('gateway'), '-n', NAMESPACE]);
    assert.equal(hpa.spec.minReplicas, 2);
    // The Deployment has no replicas of its own (1 by default): the HPA controller raises it.
    await waitFor(
      'the gateway Deployment at 2 available replicas',
      async () => {
        const deployment = await cluster.getJson(['deployment', name('gateway'), '-n', NAMESPACE]);
        return deployment.spec.replicas === 2 && deployment.status.availableReplicas === 2 ? true : undefined;
      },
      60_000,
      1000,
    );
    const processed = await cluster.getJson(['hpa', name('gateway'), '-n', NAMESPACE]);
    assert.ok(
      processed.status.conditions?.some((c: any) => c.type === 'AbleToScale'),
      'the HPA controller reported on it',
    );
  });

  step('every Service has ready endpoints', async () => {
    const services = await cluster.getJson(['services', '-n', NAMESPACE]);
    assert.equal(services.items.length, 6);
    for (const service of services.items) {
      const slices = await cluster.getJson([
        'endpointslices',
        '-n',
        NAMESPACE,
        '-l',
        `kubernetes.io/service-name=${service.metadata.name}`,
      ]);
      const ready = slices.items.flatMap((s: any) => s.endpoints ?? []).filter((e: any) => e.conditions.ready);
      assert.ok(ready.length > 0, `${service.metadata.name} has no ready endpoint`);
    }
  });

  step("Grafana's dashboard ConfigMap holds dashboards/catalog-gateway.json", async () => {
    const configMap = await cluster.getJson(['configmap', name('grafana-dashboards'), '-n', NAMESPACE]);
    const committed = JSON.parse(readFileSync(join(REPO_ROOT, 'dashboards/catalog-gateway.json'), 'utf8'));
    assert.deepEqual(JSON.parse(configMap.data['catalog-gateway.json']), committed);
  });

  step("Prometheus' pod discovery selects exactly the gateway pods, and kube-state-metrics is a live Service", async () => {
    const configMap = await cluster.getJson(['configmap', name('prometheus'), '-n', NAMESPACE]);
    const config = parseYaml(configMap.data['prometheus.yml']);
    const gatewayJob = config.scrape_configs.find((job: any) => job.job_name === 'catalog-gateway');
    const selector = gatewayJob.kubernetes_sd_configs[0].selectors[0].label;
    const selected = await cluster.getJson(['pods', '-n', NAMESPACE, '-l', selector]);
    const gatewayPods = await cluster.getJson(['pods', '-n', NAMESPACE, '-l', 'app.kubernetes.io/component=gateway']);
    assert.equal(selected.items.length, 2);
    assert.deepEqual(
      selected.items.map((p: any) => p.metadata.name),
      gatewayPods.items.map((p: any) => p.metadata.name),
    );
    for (const pod of selected.items) {
      assert.ok(
        pod.spec.containers[0].ports.some((port: any) => port.name === 'metrics'),
        'the port the relabelling keeps',
      );
    }
    const ksmJob = config.scrape_configs.find((job: any) => job.job_name === 'kube-state-metrics');
    const [host, port] = ksmJob.static_configs[0].targets[0].split(':');
    const service = await cluster.getJson(['service', host, '-n', NAMESPACE]);
    assert.ok(service.spec.ports.some((p: any) => String(p.port) === port));
  });

  step('helm test passes', async () => {
    const output = await helm.ok(['test', RELEASE, '--namespace', NAMESPACE, '--timeout', HELM_TIMEOUT]);
    assert.match(output, /TEST SUITE:\s+shop-catalog-gateway-smoke-test[\s\S]*Phase:\s+Succeeded/);
  });

  step(
    'helm upgrade with a new image tag rolls the gateway out and runs the loader hook again (its load is skipped: same source)',
    async () => {
      const password = await postgresPassword();
      const result = await helmDeploy('upgrade', { ...INSTALL_VALUES, gateway: { image: { tag: '1.0.1' } } });
      assert.equal(result.code, 0, `${result.stderr}\n${result.stdout}`);
      await waitForGatewayRollout('1.0.1', 'only 1.0.1 gateway pods');
      const after = await cluster.getJson(['job', name('loader'), '-n', NAMESPACE]);
      assert.notEqual(after.metadata.uid, installLoaderUid, 'the post-upgrade hook ran a new loader Job');
      assert.equal(after.status.succeeded, 1);
      assert.equal(await postgresPassword(), password, 'the generated password survives upgrades');
    },
  );

  step('a failing loader hook fails the upgrade, and helm rollback restores the release', async () => {
    const good = await releaseStatus();
    const failing = await helmDeploy('upgrade', {
      ...INSTALL_VALUES,
      gateway: { image: { tag: '1.0.2' } },
      loader: { ...INSTALL_VALUES.loader, backoffLimit: 0, podAnnotations: { 'catalog-gateway.test/fail': 'true' } },
    });
    assert.notEqual(failing.code, 0, 'the upgrade must fail');
    assert.match(failing.stderr, /post-upgrade hooks failed|BackoffLimitExceeded|job .*failed/i);
    assert.equal((await releaseStatus()).info.status, 'failed');
    const job = await cluster.getJson(['job', name('loader'), '-n', NAMESPACE]);
    assert.ok(job.status.conditions.some((c: any) => c.type === 'Failed' && c.status === 'True'));
    const failedRun = await loaderRun();

    await helm.ok(['rollback', RELEASE, String(good.version), '--namespace', NAMESPACE, '--wait', '--timeout', HELM_TIMEOUT]);
    const restored = await releaseStatus();
    assert.equal(restored.info.status, 'deployed');
    assert.equal(restored.version, good.version + 2);
    await waitForGatewayRollout('1.0.1', 'only 1.0.1 gateway pods again');
    const rollbackRun = await loaderRun();
    assert.notEqual(rollbackRun.uid, failedRun.uid, 'the rollback ran the loader hook');
    assert.equal((await cluster.getJson(['job', name('loader'), '-n', NAMESPACE])).status.succeeded, 1);
  });

  step(
    'a rollback across a catalog source change runs the loader with the restored source at once, not at some later upgrade',
    async () => {
      const before = await releaseStatus();
      const installed = await loaderRun();
      const reloaded = await helmDeploy('upgrade', { ...INSTALL_VALUES, loader: { ...INSTALL_VALUES.loader, generate: { seed: 2 } } });
      assert.equal(reloaded.code, 0, `${reloaded.stderr}\n${reloaded.stdout}`);
      const newSource = await loaderRun();
      assert.notEqual(newSource.fingerprint, installed.fingerprint, 'a new seed is a new catalog source');

      await helm.ok([
        'rollback',
        RELEASE,
        String(before.version),
        '--namespace',
        NAMESPACE,
        '--wait',
        '--wait-for-jobs',
        '--timeout',
        HELM_TIMEOUT,
      ]);
      // The rolled-back values name the old source again, and so does the hook that ran now: the
      // served catalog follows them, and the next upgrade finds the fingerprints equal.
      const rolledBack = await loaderRun();
      assert.notEqual(rolledBack.uid, newSource.uid, 'a post-rollback loader Job');
      assert.equal(rolledBack.fingerprint, installed.fingerprint);
      assert.equal((await cluster.getJson(['job', name('loader'), '-n', NAMESPACE])).status.succeeded, 1);
    },
  );

  step('helm uninstall leaves no workloads (hook Jobs go by their TTL), and keeps the password Secrets and the data volume', async () => {
    installedPasswords = [await postgresPassword(), await storedPassword('redis')];
    await helm.ok(['uninstall', RELEASE, '--namespace', NAMESPACE, '--wait', '--timeout', HELM_TIMEOUT]);
    const kinds = 'deployments,statefulsets,replicasets,jobs,pods,services,horizontalpodautoscalers,poddisruptionbudgets';
    await waitFor(
      'no workloads left in the namespace',
      async () => {
        const left = await cluster.getJson([kinds, '-n', NAMESPACE]);
        return left.items.length === 0 ? true : undefined;
      },
      90_000,
      1000,
    ).catch(async (error) => {
      const left = await cluster.kubectl(['get', kinds, '-n', NAMESPACE]);
      throw new Error(`${(error as Error).message}\nstill there:\n${left}`);
    });
    assert.deepEqual([await postgresPassword(), await storedPassword('redis')], installedPasswords);
    const claim = await cluster.getJson(['pvc', `data-${name('postgresql')}-0`, '-n', NAMESPACE]);
    assert.equal(claim.spec.volumeName, postgresVolume);
  });

  step('a reinstall over the retained volume reads the kept passwords back instead of generating new ones', async () => {
    const result = await helmDeploy('install', INSTALL_VALUES);
    assert.equal(result.code, 0, `${result.stderr}\n${result.stdout}`);
    assert.deepEqual([await postgresPassword(), await storedPassword('redis')], installedPasswords);
    const claim = await cluster.getJson(['pvc', `data-${name('postgresql')}-0`, '-n', NAMESPACE]);
    assert.equal(claim.spec.volumeName, postgresVolume, 'the same data volume');
    const statefulSet = await cluster.getJson(['statefulset', name('postgresql'), '-n', NAMESPACE]);
    assert.equal(statefulSet.status.readyReplicas, 1);
  });
});

describe('read replicas, Redis Sentinel and Jaeger on the API server', () => {
  const HA_NAMESPACE = 'catalog-ha';
  const haValues = { ...INSTALL_VALUES, ...VALUE_SETS['read replicas, Redis Sentinel, Jaeger'] };
  const getHa = (args: string[]) => cluster.getJson([...args, '-n', HA_NAMESPACE]);

  step('helm install --wait: the replica and Sentinel StatefulSets ready, every claim bound, passwords generated', async () => {
    await createNamespace(cluster, HA_NAMESPACE);
    const result = await helm.run([
      'install',
      RELEASE,
      CHART_DIR,
      '--namespace',
      HA_NAMESPACE,
      '-f',
      helm.valuesFile(haValues),
      '--wait',
      '--wait-for-jobs',
      '--timeout',
      HELM_TIMEOUT,
    ]);
    assert.equal(result.code, 0, `${result.stderr}\n${result.stdout}`);
    const statefulSets = Object.fromEntries(
      (await getHa(['statefulsets'])).items.map((s: any) => [s.metadata.name, [s.spec.replicas, s.status.readyReplicas]]),
    );
    assert.deepEqual(statefulSets, {
      [name('postgresql')]: [1, 1],
      [name('postgresql-read')]: [2, 2],
      [name('redis')]: [3, 3],
      [name('redis-sentinel')]: [3, 3],
    });
    const claims = (await getHa(['pvc'])).items.map((c: any) => [c.metadata.name, c.status.phase]).sort();
    assert.deepEqual(claims, [
      [`data-${name('postgresql')}-0`, 'Bound'],
      [`data-${name('postgresql-read')}-0`, 'Bound'],
      [`data-${name('postgresql-read')}-1`, 'Bound'],
    ]);
    const postgres = await getHa(['secret', name('postgresql')]);
    assert.deepEqual(Object.keys(postgres.data).sort(), ['POSTGRES_PASSWORD', 'REPLICATION_PASSWORD']);
    const jaeger = await getHa(['deployment', name('jaeger')]);
    assert.equal(jaeger.status.availableReplicas, 1);
  });

  step('each Service (read, headless, Sentinel, Jaeger) selects the pods it names, and the PDBs cover them', async () => {
    const services = (await getHa(['services'])).items;
    const expected: Record<string, number> = {
      [name('postgresql-read')]: 2,
      [name('postgresql-read-headless')]: 2,
      [name('redis-headless')]: 3,
      [name('redis-sentinel-headless')]: 3,
      [name('jaeger')]: 1,
    };
    for (const [service, pods] of Object.entries(expected)) {
      assert.ok(
        services.some((s: any) => s.metadata.name === service),
        `${service} exists`,
      );
      const slices = await getHa(['endpointslices', '-l', `kubernetes.io/service-name=${service}`]);
      const ready = slices.items.flatMap((s: any) => s.endpoints ?? []).filter((e: any) => e.conditions.ready);
      assert.equal(ready.length, pods, `${service} endpoints`);
    }
    const budgets = Object.fromEntries(
      (await getHa(['pdb'])).items.map((b: any) => [b.metadata.name, [b.status.expectedPods, b.status.disruptionsAllowed]]),
    );
    assert.deepEqual(budgets[name('postgresql-read')], [2, 1]);
    assert.deepEqual(budgets[name('redis')], [3, 1]);
    assert.deepEqual(budgets[name('redis-sentinel')], [3, 1]);
  });

  step(
    'the running gateway pods carry DATABASE_READ_URLS, REDIS_SENTINELS and the OTLP endpoint, each naming a pod or Service that exists',
    async () => {
      const pods = (await getHa(['pods', '-l', 'app.kubernetes.io/component=gateway'])).items;
      assert.ok(pods.length > 0);
      const env = Object.fromEntries(pods[0].spec.containers[0].env.map((e: any) => [e.name, e.value]));
      const readHosts = env.DATABASE_READ_URLS.split(',').map((url: string) => /@([^:]+):/.exec(url)![1]);
      const sentinelHosts = env.REDIS_SENTINELS.split(',').map((address: string) => address.split(':')[0]);
      const podNames = new Set((await getHa(['pods'])).items.map((p: any) => p.metadata.name));
      for (const host of [...readHosts, ...sentinelHosts]) {
        // <pod>.<headless service>[.<namespace>.svc]: the pod exists and the Service governs it.
        const [pod, service] = host.split('.');
        assert.ok(podNames.has(pod), `${host}: no pod ${pod}`);
        await getHa(['service', service]);
      }
      assert.equal(env.OTEL_EXPORTER_OTLP_ENDPOINT, `http://${name('jaeger')}:4318`);
      await getHa(['service', name('jaeger')]);
    },
  );

  step('helm uninstall removes the replicas’ volumes (copies of the primary) and keeps the primary’s', async () => {
    await helm.ok(['uninstall', RELEASE, '--namespace', HA_NAMESPACE, '--wait', '--timeout', HELM_TIMEOUT]);
    await waitFor(
      'only the primary’s claim left',
      async () => {
        const claims = (await getHa(['pvc'])).items.filter((c: any) => !c.metadata.deletionTimestamp).map((c: any) => c.metadata.name);
        return claims.length === 1 && claims[0] === `data-${name('postgresql')}-0` ? true : undefined;
      },
      60_000,
      1000,
    );
  });
});
