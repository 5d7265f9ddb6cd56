// validateValues: values that cannot make a working release are refused before anything reaches
// the cluster, every problem in one message; and an offline render (helm template, Argo CD) is
// refused unless it is given the passwords it could otherwise only make up anew at every render.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { CHART_DIR, findManifest, Helm, NAMESPACE, OFFLINE_CREDENTIALS, parseManifests, RELEASE } from './support/chart.js';

const helm = new Helm();
after(() => helm.cleanup());

/** `helm template` with exactly these values (no offline credentials added). */
const renderBare = (values: object) => helm.run(['template', RELEASE, CHART_DIR, '--namespace', NAMESPACE, '-f', helm.valuesFile(values)]);

/** The problems a refused render lists (the lines after "VALUES VALIDATION"). */
function problems(stderr: string): string[] {
  const [, list] = stderr.split(/VALUES VALIDATION: \d+ problem\(s\):\n/);
  assert.ok(list, `no validation report in:\n${stderr}`);
  return list
    .split('\n')
    .filter((line) => line.startsWith('- '))
    .map((line) => line.slice(2));
}

describe('validateValues reports every problem at once', () => {
  test('seven unrelated mistakes give one failed render naming all seven', async () => {
    const result = await renderBare({
      ...OFFLINE_CREDENTIALS,
      postgresql: { ...OFFLINE_CREDENTIALS.postgresql, readReplicas: { replicaCount: 1, maxConnections: 100 } },
      externalDatabase: { readUrls: ['postgres://app:pw@db-ro:5432/app'] },
      loader: { source: 'pvc' },
      gateway: { autoscaling: { minReplicas: 5, maxReplicas: 3 } },
      redis: { ...OFFLINE_CREDENTIALS.redis, sentinel: { enabled: true, replicas: 1, minReplicasToWrite: 2, quorum: 4 } },
      tracing: { otlpEndpoint: 'http://collector:4318', jaeger: { enabled: true } },
    });
    assert.notEqual(result.code, 0);
    const listed = problems(result.stderr);
    for (const expected of [
      /^externalDatabase.readUrls .* apply only with postgresql.enabled=false/,
      /^postgresql.readReplicas.maxConnections \(100\) must be at least postgresql.maxConnections \(250\)/,
      /^redis.sentinel.quorum \(4\) cannot exceed redis.sentinel.sentinels \(3\)/,
      /^redis.sentinel.minReplicasToWrite \(2\) cannot exceed redis.sentinel.replicas \(1\)/,
      /^gateway.autoscaling.minReplicas must not exceed maxReplicas/,
      /^loader.source=pvc needs loader.pvc.claimName/,
      /^tracing.otlpEndpoint and tracing.jaeger.enabled: set one/,
    ]) {
      assert.ok(
        listed.some((line) => expected.test(line)),
        `${expected} among:\n${listed.join('\n')}`,
      );
    }
    assert.equal(listed.length, 7, listed.join('\n'));
  });

  test('external Redis settings beside the chart’s own Redis, or sentinels without a master name, are reported', async () => {
    const beside = await renderBare({ ...OFFLINE_CREDENTIALS, externalRedis: { url: 'redis://cache:6379/0' } });
    assert.deepEqual(problems(beside.stderr), ['externalRedis applies only with redis.enabled=false']);
    const noMaster = await renderBare({ ...OFFLINE_CREDENTIALS, redis: { enabled: false }, externalRedis: { sentinels: ['s-0:26379'] } });
    assert.match(problems(noMaster.stderr).join('\n'), /externalRedis.sentinels needs externalRedis.sentinelMaster/);
  });
});

describe('a purge target is sent the tags it purges by', () => {
  test('each purge target without the header its cache reads is reported; each with it renders', async () => {
    const purges = {
      edgePurgeFastlyServiceId: 'svc',
      edgePurgeCloudflareZoneId: 'zone-1',
      edgePurgeVarnishUrls: 'http://varnish:6081',
    };
    const tokens = {
      edgePurge: {
        existingFastlyTokenSecret: { name: 'cdn-tokens', key: 'fastly' },
        existingCloudflareTokenSecret: { name: 'cdn-tokens', key: 'cloudflare' },
      },
    };
    const refused = await renderBare({
      ...OFFLINE_CREDENTIALS,
      gateway: { ...tokens, config: { ...purges, edgeSurrogateKeyHeader: 'none', edgeCacheTagHeader: 'none' } },
    });
    assert.deepEqual(problems(refused.stderr), [
      'gateway.config.edgeSurrogateKeyHeader is none, but Fastly (gateway.config.edgePurgeFastlyServiceId) purges by it: it would purge nothing',
      'gateway.config.edgeCacheTagHeader is none, but Cloudflare (gateway.config.edgePurgeCloudflareZoneId) purges by it: it would purge nothing',
      'gateway.config.edgeSurrogateKeyHeader is none and no edgeCacheTagHeader, but Varnish (gateway.config.edgePurgeVarnishUrls) is purged by tags: it would purge nothing',
    ]);
    for (const config of [
      purges,
      { edgePurgeCloudflareZoneId: 'zone-1', edgeSurrogateKeyHeader: 'none' },
      { edgePurgeVarnishUrls: 'http://varnish:6081', edgeSurrogateKeyHeader: 'none', edgeCacheTagHeader: 'xkey' },
      { edgeSurrogateKeyHeader: 'none', edgeCacheTagHeader: 'none' },
    ]) {
      const result = await renderBare({ ...OFFLINE_CREDENTIALS, gateway: { ...tokens, config } });
      assert.equal(result.code, 0, `${JSON.stringify(config)}\n${result.stderr}`);
    }
  });
});

describe('passwords are never made up by a render that cannot keep them', () => {
  test('helm template without passwords is refused, naming each one and the ways out', async () => {
    const result = await renderBare({ postgresql: { readReplicas: { replicaCount: 1 } } });
    assert.notEqual(result.code, 0);
    const listed = problems(result.stderr);
    assert.deepEqual(
      listed.map((line) => line.split(' ')[0]),
      ['postgresql.auth.password', 'postgresql.auth.replicationPassword', 'redis.auth.password'],
    );
    assert.match(listed[0]!, /without a cluster \(helm template, helm lint, Argo CD, --dry-run=client\)/);
    assert.match(listed[0]!, /set postgresql.auth.existingSecret, or render with --dry-run=server/);
    assert.match(listed[2]!, /set redis.auth.existingSecret/);
  });

  test('the replication password is needed only once read replicas run', async () => {
    const result = await renderBare({ postgresql: { auth: { password: 'given-postgres' } }, redis: { auth: { password: 'given-redis' } } });
    assert.equal(result.code, 0, result.stderr);
    const secret = findManifest(parseManifests(result.stdout), 'Secret', '-postgresql') as any;
    assert.deepEqual(secret.stringData, { POSTGRES_PASSWORD: 'given-postgres' });
  });

  test('existing Secrets render without any password, and the chart then makes no password Secret', async () => {
    const result = await renderBare({
      postgresql: { auth: { existingSecret: 'catalog-postgres' }, readReplicas: { replicaCount: 1 } },
      redis: { auth: { existingSecret: 'catalog-redis', existingSecretPasswordKey: 'password' } },
    });
    assert.equal(result.code, 0, result.stderr);
    const manifests = parseManifests(result.stdout);
    assert.deepEqual(
      manifests.filter((m) => m.kind === 'Secret').map((m) => m.metadata.name),
      ['shop-catalog-gateway-grafana'],
    );
    const env = (findManifest(manifests, 'Deployment', '-gateway') as any).spec.template.spec.containers[0].env;
    const ref = (name: string) => env.find((e: any) => e.name === name).valueFrom.secretKeyRef;
    assert.deepEqual(ref('POSTGRES_PASSWORD'), { name: 'catalog-postgres', key: 'POSTGRES_PASSWORD' });
    assert.deepEqual(ref('REDIS_PASSWORD'), { name: 'catalog-redis', key: 'password' });
  });
});

describe('per-pod caches on more than one gateway pod', () => {
  const noRedis = { ...OFFLINE_CREDENTIALS, redis: { enabled: false } };

  test('are refused by default: with the autoscaler (its maxReplicas counts) and with fixed replicas', async () => {
    const scaled = await renderBare(noRedis);
    assert.deepEqual(problems(scaled.stderr), [
      '10 gateway pods with per-pod caches (no redis, no externalRedis): a write through one pod stays invisible on the others ' +
        'for up to gateway.config.cacheTtlSeconds (300 s). Enable redis, set externalRedis, or set gateway.cache.acceptStaleReplicas=true',
    ]);
    const fixed = await renderBare({ ...noRedis, gateway: { autoscaling: { enabled: false }, replicas: 2 } });
    assert.match(problems(fixed.stderr)[0]!, /^2 gateway pods with per-pod caches/);
  });

  test('render when accepted, with one pod, with the cache off, or with an external Redis', async () => {
    for (const gateway of [
      { cache: { acceptStaleReplicas: true } },
      { autoscaling: { enabled: false }, replicas: 1 },
      { config: { cacheTtlSeconds: 0 } },
    ]) {
      const result = await renderBare({ ...noRedis, gateway });
      assert.equal(result.code, 0, `${JSON.stringify(gateway)}: ${result.stderr}`);
    }
    const external = await renderBare({ ...noRedis, externalRedis: { url: 'redis://cache:6379/0' } });
    assert.equal(external.code, 0, external.stderr);
  });
});
