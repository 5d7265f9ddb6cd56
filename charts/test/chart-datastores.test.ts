// The chart's Postgres and Redis, rendered: passwords kept in Secrets that outlive the release and
// adopted by Postgres at every start; read replicas cloned from the primary and wired to the
// gateway; Redis behind a password, and Redis with Sentinel failover.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { findManifest, Helm, parseManifests, VALUE_SETS, type Manifest } from './support/chart.js';

const helm = new Helm();
let defaults: Manifest[];
let full: Manifest[];
let external: Manifest[];

before(async () => {
  defaults = parseManifests(await helm.template({}));
  full = parseManifests(await helm.template(VALUE_SETS['read replicas, Redis Sentinel, Jaeger']!));
  external = parseManifests(await helm.template(VALUE_SETS['external CloudNativePG, Redis Sentinels and OTLP collector']!));
});
after(() => helm.cleanup());

const podSpec = (manifests: Manifest[], kind: string, suffix: string) => (findManifest(manifests, kind, suffix) as any).spec.template.spec;
const container = (spec: any, name: string) => [...(spec.initContainers ?? []), ...spec.containers].find((c: any) => c.name === name);
const envOf = (c: any): Record<string, any> => Object.fromEntries(c.env.map((e: any) => [e.name, e.value ?? e.valueFrom]));
const gatewayEnv = (manifests: Manifest[]) => envOf(podSpec(manifests, 'Deployment', '-gateway').containers[0]);
/** A pod template's annotations. */
const annotationsOf = (manifests: Manifest[], kind: string, suffix: string) =>
  (findManifest(manifests, kind, suffix) as any).spec.template.metadata.annotations;

describe('passwords', () => {
  test('the Postgres and Redis password Secrets outlive `helm uninstall` (resource-policy keep)', () => {
    for (const suffix of ['-postgresql', '-redis']) {
      const secret = findManifest(defaults, 'Secret', suffix) as any;
      assert.equal(secret.metadata.annotations['helm.sh/resource-policy'], 'keep', suffix);
    }
  });

  test('Postgres takes the Secret’s passwords at every start: initdb’s script on a new volume, the sync-roles init container on an initialised one', () => {
    const spec = podSpec(defaults, 'StatefulSet', '-postgresql');
    const sync = container(spec, 'sync-roles');
    assert.deepEqual(sync.command, ['sh', '/etc/postgresql/sync-roles.sh']);
    const env = envOf(sync);
    assert.deepEqual(env.POSTGRES_PASSWORD, { secretKeyRef: { name: 'shop-catalog-gateway-postgresql', key: 'POSTGRES_PASSWORD' } });
    assert.deepEqual(env.REPLICATION_PASSWORD, {
      secretKeyRef: { name: 'shop-catalog-gateway-postgresql', key: 'REPLICATION_PASSWORD', optional: true },
    });
    const server = container(spec, 'postgresql');
    assert.deepEqual(
      server.volumeMounts.find((m: any) => m.name === 'initdb'),
      {
        name: 'initdb',
        mountPath: '/docker-entrypoint-initdb.d',
        readOnly: true,
      },
    );
    const config = (findManifest(defaults, 'ConfigMap', '-postgresql') as any).data;
    assert.match(config['sync-roles.sql'], /ALTER ROLE :"user" WITH PASSWORD :'password';/);
    assert.match(config['sync-roles.sh'], /psql .* -f \/etc\/postgresql\/sync-roles.sql/);
    assert.match(config['pg_hba.conf'], /^host replication replicator all scram-sha-256$/m);
  });

  test('a new password restarts Postgres, Redis and the gateway; an image bump restarts none of them for their credentials', async () => {
    const rotated = parseManifests(
      await helm.template({ postgresql: { auth: { password: 'rotated-postgres' } }, redis: { auth: { password: 'rotated-redis' } } }),
    );
    const bumped = parseManifests(await helm.template({ gateway: { image: { tag: '9.9.9' } } }));
    for (const [kind, suffix] of [
      ['StatefulSet', '-postgresql'],
      ['Deployment', '-redis'],
      ['Deployment', '-gateway'],
    ] as const) {
      const before = annotationsOf(defaults, kind, suffix)['checksum/credentials'];
      assert.notEqual(annotationsOf(rotated, kind, suffix)['checksum/credentials'], before, `${kind}${suffix} after a new password`);
      assert.equal(annotationsOf(bumped, kind, suffix)['checksum/credentials'], before, `${kind}${suffix} after an image bump`);
    }
  });

  test('Redis requires its password: redis-server --requirepass, the probe authenticates, the gateway’s REDIS_URL carries it', () => {
    const redis = podSpec(defaults, 'Deployment', '-redis').containers[0];
    assert.deepEqual(redis.args.slice(-2), ['--requirepass', '$(REDIS_PASSWORD)']);
    const env = envOf(redis);
    assert.deepEqual(env.REDIS_PASSWORD, { secretKeyRef: { name: 'shop-catalog-gateway-redis', key: 'REDIS_PASSWORD' } });
    assert.equal(env.REDISCLI_AUTH, '$(REDIS_PASSWORD)');
    assert.deepEqual(redis.readinessProbe.exec.command, ['sh', '-c', '[ "$(redis-cli -p 6379 ping)" = PONG ]']);
    assert.equal(gatewayEnv(defaults).REDIS_URL, 'redis://:$(REDIS_PASSWORD)@shop-catalog-gateway-redis:6379/0');
    assert.ok(redis.args.includes('allkeys-lru'), 'any key may be evicted (the cache protocol tolerates it)');
  });
});

describe('read replicas', () => {
  test('none by default: no replica objects and no DATABASE_READ_URLS', () => {
    assert.ok(!defaults.some((m) => m.metadata.name.includes('postgresql-read')));
    assert.equal(gatewayEnv(defaults).DATABASE_READ_URLS, undefined);
  });

  test('a StatefulSet of replicaCount replicas, each cloning the primary with pg_basebackup -R on its first start', () => {
    const statefulSet = findManifest(full, 'StatefulSet', '-postgresql-read') as any;
    assert.equal(statefulSet.spec.replicas, 2);
    assert.equal(statefulSet.spec.serviceName, 'shop-catalog-gateway-postgresql-read-headless');
    const spec = statefulSet.spec.template.spec;
    const clone = container(spec, 'clone-from-primary');
    assert.deepEqual(clone.command, ['sh', '/etc/postgresql/clone-from-primary.sh']);
    const env = envOf(clone);
    assert.equal(env.PRIMARY_HOST, 'shop-catalog-gateway-postgresql');
    assert.equal(env.POSTGRES_REPLICATION_USER, 'replicator');
    assert.deepEqual(env.PGPASSWORD, { secretKeyRef: { name: 'shop-catalog-gateway-postgresql', key: 'REPLICATION_PASSWORD' } });
    const script = (findManifest(full, 'ConfigMap', '-postgresql') as any).data['clone-from-primary.sh'];
    assert.match(script, /pg_basebackup -h "\$PRIMARY_HOST" .*\n.* -R -X stream/);
    const secret = findManifest(full, 'Secret', '-postgresql') as any;
    assert.equal(secret.stringData.REPLICATION_PASSWORD, 'offline-render-replication');
  });

  test('the replication password is in the primary’s pod template: enabling replicas on a running release (a password generated then) restarts the primary, whose init container creates the role they clone as; scaling them does not', async () => {
    const primaryTemplate = async (replicationPassword: string, replicaCount: number) =>
      annotationsOf(
        parseManifests(await helm.template({ postgresql: { auth: { replicationPassword }, readReplicas: { replicaCount } } })),
        'StatefulSet',
        '-postgresql',
      );
    // Installed without replicas (no replication password), then the one generated for them: a
    // generated one is not in postgresql.auth, so checksum/credentials cannot show it.
    const without = await primaryTemplate('', 0);
    const enabled = await primaryTemplate('generated-for-replicas', 2);
    assert.equal(without['checksum/replication'], undefined);
    assert.match(enabled['checksum/replication'], /^[0-9a-f]{64}$/);
    assert.deepEqual(await primaryTemplate('generated-for-replicas', 3), enabled, 'scaled up');
    assert.deepEqual(await primaryTemplate('generated-for-replicas', 0), enabled, 'scaled to 0: the password stays');
    assert.notEqual((await primaryTemplate('rotated', 2))['checksum/replication'], enabled['checksum/replication'], 'a new password');
  });

  test('the primary runs with wal_level=replica, max_wal_senders and hot_standby; a replica with as many connections and senders, and hot_standby_feedback', () => {
    const setting = (args: string[], name: string) => args.find((arg) => arg.startsWith(`${name}=`))?.split('=')[1];
    const primary = podSpec(full, 'StatefulSet', '-postgresql').containers[0].args;
    const replica = podSpec(full, 'StatefulSet', '-postgresql-read').containers[0].args;
    assert.equal(setting(primary, 'wal_level'), 'replica');
    assert.equal(setting(primary, 'hot_standby'), 'on');
    assert.equal(setting(primary, 'wal_keep_size'), '512MB');
    assert.equal(setting(replica, 'hot_standby_feedback'), 'on');
    for (const name of ['max_connections', 'max_wal_senders']) {
      assert.ok(Number(setting(replica, name)) >= Number(setting(primary, name)), name);
    }
    const conninfo = replica.find((arg: string) => arg.startsWith('primary_conninfo='));
    assert.equal(
      conninfo,
      'primary_conninfo=host=$(PRIMARY_HOST) port=$(PRIMARY_PORT) user=$(POSTGRES_REPLICATION_USER) application_name=$(POD_NAME)',
    );
    assert.doesNotMatch(conninfo, /password/, 'the password comes from PGPASSWORD, never from the command line');
  });

  test('their own read Service and headless Service, a PDB, and anti-affinity against every Postgres pod', () => {
    const read = findManifest(full, 'Service', '-postgresql-read') as any;
    const headless = findManifest(full, 'Service', '-postgresql-read-headless') as any;
    const labels = (findManifest(full, 'StatefulSet', '-postgresql-read') as any).spec.template.metadata.labels;
    for (const service of [read, headless]) {
      for (const [key, value] of Object.entries(service.spec.selector)) assert.equal(labels[key], value, service.metadata.name);
    }
    assert.equal(headless.spec.clusterIP, 'None');
    assert.equal(read.spec.type, 'ClusterIP');
    const primaryService = findManifest(full, 'Service', '-postgresql') as any;
    assert.equal(primaryService.spec.selector['app.kubernetes.io/component'], 'postgresql', 'the primary Service never selects a replica');
    const pdb = findManifest(full, 'PodDisruptionBudget', '-postgresql-read') as any;
    assert.deepEqual(pdb.spec, { maxUnavailable: 1, selector: { matchLabels: read.spec.selector } });
    const antiAffinity = podSpec(full, 'StatefulSet', '-postgresql-read').affinity.podAntiAffinity;
    const term = antiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm;
    assert.equal(term.topologyKey, 'kubernetes.io/hostname');
    assert.deepEqual(term.labelSelector.matchExpressions.find((e: any) => e.key === 'app.kubernetes.io/component').values, [
      'postgresql',
      'postgresql-read',
    ]);
  });

  test('hard anti-affinity on request', async () => {
    const hard = parseManifests(await helm.template({ postgresql: { readReplicas: { replicaCount: 1, podAntiAffinity: 'hard' } } }));
    const antiAffinity = podSpec(hard, 'StatefulSet', '-postgresql-read').affinity.podAntiAffinity;
    assert.equal(antiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey, 'kubernetes.io/hostname');
  });

  test('the gateway gets DATABASE_READ_URLS: one per replica pod by default, or the read Service', async () => {
    const url = (host: string) => `postgres://catalog:$(POSTGRES_PASSWORD)@${host}:5432/catalog`;
    assert.equal(
      gatewayEnv(full).DATABASE_READ_URLS,
      [0, 1].map((n) => url(`shop-catalog-gateway-postgresql-read-${n}.shop-catalog-gateway-postgresql-read-headless`)).join(','),
    );
    const service = parseManifests(await helm.template({ postgresql: { readReplicas: { replicaCount: 3, gatewayTargets: 'service' } } }));
    assert.equal(gatewayEnv(service).DATABASE_READ_URLS, url('shop-catalog-gateway-postgresql-read'));
    const loader = (findManifest(full, 'Job', '-loader') as any).spec.template.spec.containers[0];
    assert.equal(envOf(loader).DATABASE_READ_URLS, undefined, 'the loader writes: it needs the primary only');
  });

  test('the replicas may reach the primary through its NetworkPolicy; the gateway and loader may reach the replicas', () => {
    const peers = (suffix: string) =>
      (findManifest(full, 'NetworkPolicy', suffix) as any).spec.ingress[0].from.map(
        (peer: any) => peer.podSelector.matchLabels['app.kubernetes.io/component'],
      );
    assert.deepEqual(peers('-postgresql'), ['gateway', 'loader', 'postgresql-read']);
    assert.deepEqual(peers('-postgresql-read'), ['gateway', 'loader']);
  });

  test('externalDatabase.readUrls (a CloudNativePG -ro Service) reach the gateway through the chart’s Secret', () => {
    const env = gatewayEnv(external);
    assert.deepEqual(env.DATABASE_READ_URLS, { secretKeyRef: { name: 'shop-catalog-gateway-gateway', key: 'DATABASE_READ_URLS' } });
    const secret = findManifest(external, 'Secret', '-gateway') as any;
    assert.equal(secret.stringData.DATABASE_READ_URLS, 'postgres://app:s3cret@catalog-db-ro.databases:5432/app');
    assert.equal(secret.stringData.DATABASE_URL, 'postgres://app:s3cret@catalog-db-rw.databases:5432/app');
  });

  test('or from a key of an existing Secret', async () => {
    const manifests = parseManifests(
      await helm.template({
        postgresql: { enabled: false },
        externalDatabase: { existingSecret: { name: 'catalog-db-urls', key: 'DATABASE_URL', readUrlsKey: 'DATABASE_READ_URLS' } },
      }),
    );
    assert.deepEqual(gatewayEnv(manifests).DATABASE_READ_URLS, { secretKeyRef: { name: 'catalog-db-urls', key: 'DATABASE_READ_URLS' } });
  });
});

describe('Redis with Sentinel', () => {
  test('a StatefulSet of 1 primary + replicas and one of three Sentinels, instead of the single Redis', () => {
    assert.ok(!full.some((m) => m.kind === 'Deployment' && m.metadata.name.endsWith('-redis')));
    assert.ok(!full.some((m) => m.kind === 'Service' && m.metadata.name.endsWith('-redis')));
    const servers = findManifest(full, 'StatefulSet', '-redis') as any;
    const sentinels = findManifest(full, 'StatefulSet', '-redis-sentinel') as any;
    assert.equal(servers.spec.replicas, 3);
    assert.equal(sentinels.spec.replicas, 3);
    assert.equal(servers.spec.serviceName, 'shop-catalog-gateway-redis-headless');
    assert.equal(sentinels.spec.serviceName, 'shop-catalog-gateway-redis-sentinel-headless');
    const serverHeadless = findManifest(full, 'Service', '-redis-headless') as any;
    assert.equal(serverHeadless.spec.publishNotReadyAddresses, true, 'a Sentinel resolves the primary before it is ready');
  });

  test('servers start through the script that asks the Sentinels for the primary, with min-replicas-to-write against split brain', () => {
    const server = podSpec(full, 'StatefulSet', '-redis').containers[0];
    assert.deepEqual(server.command, ['sh', '/etc/redis-sentinel/redis-server.sh']);
    const env = envOf(server);
    assert.equal(env.MIN_REPLICAS_TO_WRITE, '1');
    assert.equal(env.SELF_HOST, '$(POD_NAME).shop-catalog-gateway-redis-headless.catalog.svc');
    assert.equal(env.INITIAL_PRIMARY, 'shop-catalog-gateway-redis-0.shop-catalog-gateway-redis-headless.catalog.svc');
    assert.equal(env.SENTINEL_HOSTS.split(' ').length, 3);
    const scripts = (findManifest(full, 'ConfigMap', '-redis-sentinel') as any).data;
    assert.match(scripts['primary.sh'], /SENTINEL get-master-addr-by-name "\$MASTER_SET"/);
    assert.match(scripts['redis-server.sh'], /--min-replicas-to-write "\$MIN_REPLICAS_TO_WRITE"/);
    assert.match(scripts['redis-server.sh'], /--replicaof "\$primary" 6379/);
    assert.match(scripts['sentinel.sh'], /exec redis-server \/data\/sentinel.conf --sentinel/);
    assert.match(scripts['sentinel.sh'], /--sentinel monitor "\$MASTER_SET" "\$primary" 6379 "\$QUORUM"/);
    // A primary about to stop asks the Sentinels to fail over first, within the grace period.
    assert.deepEqual(server.lifecycle.preStop.exec.command, ['sh', '/etc/redis-sentinel/pre-stop.sh']);
    assert.match(scripts['pre-stop.sh'], /SENTINEL FAILOVER "\$MASTER_SET"/);
    assert.equal(podSpec(full, 'StatefulSet', '-redis').terminationGracePeriodSeconds, 30);
    const sentinel = podSpec(full, 'StatefulSet', '-redis-sentinel').containers[0];
    assert.deepEqual(sentinel.command, ['sh', '/etc/redis-sentinel/sentinel.sh']);
    assert.equal(envOf(sentinel).QUORUM, '2');
  });

  test('the gateway gets REDIS_SENTINELS, REDIS_SENTINEL_MASTER and the passwords, not REDIS_URL', () => {
    const env = gatewayEnv(full);
    assert.equal(env.REDIS_URL, undefined);
    assert.equal(
      env.REDIS_SENTINELS,
      [0, 1, 2]
        .map((n) => `shop-catalog-gateway-redis-sentinel-${n}.shop-catalog-gateway-redis-sentinel-headless.catalog.svc:26379`)
        .join(','),
    );
    assert.equal(env.REDIS_SENTINEL_MASTER, 'catalog');
    assert.deepEqual(env.REDIS_PASSWORD, { secretKeyRef: { name: 'shop-catalog-gateway-redis', key: 'REDIS_PASSWORD' } });
    assert.equal(env.REDIS_SENTINEL_PASSWORD, '$(REDIS_PASSWORD)');
  });

  test('PDBs for servers and Sentinels; NetworkPolicies let servers, Sentinels and the gateway reach what they need', () => {
    for (const suffix of ['-redis', '-redis-sentinel']) {
      assert.equal((findManifest(full, 'PodDisruptionBudget', suffix) as any).spec.maxUnavailable, 1, suffix);
    }
    const peers = (suffix: string) =>
      (findManifest(full, 'NetworkPolicy', suffix) as any).spec.ingress[0].from.map(
        (peer: any) => peer.podSelector.matchLabels['app.kubernetes.io/component'],
      );
    assert.deepEqual(peers('-redis'), ['gateway', 'loader', 'redis', 'redis-sentinel']);
    assert.deepEqual(peers('-redis-sentinel'), ['gateway', 'redis', 'redis-sentinel']);
  });

  test('externalRedis.sentinels: the gateway gets them, the master name and the password from the chart’s Secret', () => {
    const env = gatewayEnv(external);
    assert.equal(env.REDIS_SENTINELS, 'sentinel-0.cache:26379,sentinel-1.cache:26379,sentinel-2.cache:26379');
    assert.equal(env.REDIS_SENTINEL_MASTER, 'mymaster');
    assert.deepEqual(env.REDIS_PASSWORD, { secretKeyRef: { name: 'shop-catalog-gateway-gateway', key: 'REDIS_PASSWORD' } });
    assert.equal(env.REDIS_SENTINEL_PASSWORD, undefined);
    assert.equal(env.REDIS_URL, undefined);
    assert.equal((findManifest(external, 'Secret', '-gateway') as any).stringData.REDIS_PASSWORD, 'redis-s3cret');
  });
});
