// The images scripts/images/build-all.sh builds with podman (no Docker engine here), taken apart:
// the manifest the real-cluster test imports lists every image the chart runs; the project images
// run as uid 10001 on Node 24 and carry nothing they do not run; the stand-ins for third-party
// images honour the official images' contracts the chart relies on. Commands run chrooted in each
// image's filesystem (support/local-image.ts): `podman run` fails on this host's hybrid cgroups.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { freePort } from '../../scripts/test/ports.js';
import { findManifest, Helm, parseManifests, REPO_ROOT, VALUE_SETS, type Manifest } from './support/chart.js';
import { ImagePod } from './support/image-pod.js';
import { imageSize, LocalImage } from './support/local-image.js';
import { containerEnv } from './support/pod-env.js';
import { NetworkNamespace } from './support/real-cluster/netns.js';
import { onPath, skipUnlessPresent } from './support/prerequisites.js';
import { GroupProcess, run } from '../../scripts/test/process.js';
import { waitFor } from '../../scripts/test/wait.js';

const PROJECT_IMAGES = {
  gateway: { ref: 'docker.io/library/catalog-gateway:0.1.0', usage: /usage: catalog-gateway/ },
  loader: { ref: 'docker.io/library/catalog-loader:0.1.0', usage: /Usage: catalog-loader/ },
};
const SANDBOX_IMAGE = /^registry\.k8s\.io\/pause:/;

const skip = skipUnlessPresent('images-build.test.ts (podman builds, chroot runs)', [
  ...(process.getuid?.() === 0 ? [] : ['root']),
  ...['podman', 'mmdebstrap', 'gcc', 'go', 'chroot'].filter((command) => !onPath(command)).map((command) => `${command} on PATH`),
]);

/** A chart image reference as containerd names it (docker.io/library/ for bare names). */
function fullRef(image: string): string {
  const [first, ...rest] = image.split('/');
  if (rest.length > 0 && (first!.includes('.') || first!.includes(':') || first === 'localhost')) return image;
  return rest.length > 0 ? `docker.io/${image}` : `docker.io/library/${image}`;
}

/** Every container image the rendered chart runs (hooks and test pods included). */
function chartImages(yamlText: string): string[] {
  const images = parseManifests(yamlText).flatMap((manifest: any) => {
    const pod = manifest.kind === 'Pod' ? manifest.spec : manifest.spec?.template?.spec;
    return pod ? [...(pod.initContainers ?? []), ...pod.containers].map((container: any) => fullRef(container.image)) : [];
  });
  return [...new Set(images)].sort();
}

/** Packages only the development tree needs (the lockfile flags them dev), e.g. typescript. */
const devOnlyPackages = Object.entries(
  JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')).packages as Record<string, { dev?: boolean }>,
)
  .filter(([path, entry]) => entry.dev && path.startsWith('node_modules/'))
  .map(([path]) => path);

describe('images built by scripts/images/build-all.sh', { skip }, () => {
  const out = mkdtempSync(join(tmpdir(), 'catalog-images-out-'));
  const mounted: LocalImage[] = [];
  let manifest: Record<string, { archive: string; bytes: number }>;

  /** Runs body while a server runs in the image; a failure carries the server's log. */
  async function whileServing(name: string, [command, args]: [string, string[]], body: () => Promise<void>): Promise<void> {
    const server = new GroupProcess(name, command, args, join(out, `${name.replaceAll(' ', '-')}.log`));
    try {
      await body();
    } catch (error) {
      (error as Error).message += `\n${server.logTail(30)}`;
      throw error;
    } finally {
      await server.stop();
    }
  }

  async function mount(ref: string): Promise<LocalImage> {
    const image = await LocalImage.mount(ref);
    mounted.push(image);
    return image;
  }

  before(async () => {
    const log = join(out, 'build.log');
    const started = Date.now();
    const build = await run('bash', ['-c', 'exec "$0" --out "$1" >"$2" 2>&1', join(REPO_ROOT, 'scripts/images/build-all.sh'), out, log]);
    const output = readFileSync(log, 'utf8');
    if (build.code !== 0) throw new Error(`build-all.sh failed:\n${output.trimEnd().split('\n').slice(-40).join('\n')}`);
    console.log(
      `# build-all.sh: ${Math.round((Date.now() - started) / 1000)} s; ${output.match(/^images: build-.* took \d+s$/gm)?.join('; ')}`,
    );
    manifest = JSON.parse(readFileSync(join(out, 'images.json'), 'utf8'));
  });
  after(async () => {
    for (const image of mounted) await image.remove();
    rmSync(out, { recursive: true, force: true });
  });

  test('images.json lists an archive for every image the chart runs (Grafana off), Jaeger included, and the sandbox image', async () => {
    const helm = new Helm();
    try {
      const images = async (values: object) => chartImages(await helm.template({ ...values, grafana: { enabled: false } }));
      const expected = [
        ...new Set([...(await images({})), ...(await images(VALUE_SETS['read replicas, Redis Sentinel, Jaeger']!))]),
      ].sort();
      const refs = Object.keys(manifest);
      assert.deepEqual(refs.filter((ref) => !SANDBOX_IMAGE.test(ref)).sort(), expected);
      assert.equal(refs.filter((ref) => SANDBOX_IMAGE.test(ref)).length, 1);
    } finally {
      helm.cleanup();
    }
    for (const [ref, { archive, bytes }] of Object.entries(manifest)) {
      assert.equal(statSync(archive).size, bytes, archive);
      console.log(
        `# ${ref}: ${((await imageSize(ref)) / 2 ** 20).toFixed(1)} MiB unpacked, archive (gzip layers) ${(bytes / 2 ** 20).toFixed(1)} MiB`,
      );
    }
  });

  for (const [name, { ref, usage }] of Object.entries(PROJECT_IMAGES)) {
    test(`the ${name} image runs its entrypoint as uid 10001 on Node 24, without dev-only packages`, async () => {
      const image = await mount(ref);
      assert.equal(image.config.User, '10001:10001');
      const identity = await image.run(['node', '-p', '[process.getuid(), process.getgid(), process.version].join(" ")']);
      assert.match(identity.stdout, /^10001 10001 v24\.\d+\.\d+$/m, identity.stderr);
      // --help loads the whole static module graph before printing: every import resolves.
      const help = await image.run(image.entrypoint(['--help']));
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, usage);
      const present = await image.run(['sh', '-c', 'for p in "$@"; do [ -e "$p" ] && echo "$p"; done; true', 'sh', ...devOnlyPackages]);
      assert.deepEqual(present.stdout.split('\n').filter(Boolean), [], 'dev-only packages in the image');
      assert.ok(devOnlyPackages.includes('node_modules/typescript'));
    });
  }

  test('the gateway image holds, of the loader workspace, only its manifest (npm ci checks it), and the contract package', async () => {
    const image = await mount(PROJECT_IMAGES.gateway.ref);
    const files = await image.run(['find', 'loader-job', '-type', 'f']);
    assert.deepEqual(files.stdout.split('\n').filter(Boolean).sort(), ['loader-job/package.json']);
    const contract = await image.run([
      'node',
      '-e',
      'import("@catalog/contract").then((c) => c.readSql("schema.sql")).then((sql) => console.log(sql.includes("CREATE TABLE products")))',
    ]);
    assert.equal(contract.stdout.trim(), 'true', contract.stderr);
  });

  test('the postgres stand-in initialises from POSTGRES_* as uid 999 and takes postgres options as arguments', async () => {
    const image = await mount('docker.io/library/postgres:15.10');
    const port = await freePort();
    // The chart's env and uid; the options keep the server on loopback.
    const server = image.commandLine(
      image.entrypoint(['-c', 'max_connections=42', '-c', 'listen_addresses=127.0.0.1', '-p', String(port)]),
      { POSTGRES_USER: 'catalog', POSTGRES_DB: 'catalog', POSTGRES_PASSWORD: 'stand-in', PGDATA: '/var/lib/postgresql/data/pgdata' },
      '999:999',
    );
    const connect = async () => {
      const client = new pg.Client({ host: '127.0.0.1', port, user: 'catalog', database: 'catalog', password: 'stand-in' });
      await client.connect();
      return client;
    };
    await whileServing('postgres stand-in', server, async () => {
      const client = await waitFor('the postgres stand-in', connect, 60_000);
      try {
        const { rows } = await client.query("SELECT current_user, current_database(), current_setting('max_connections') AS max");
        assert.deepEqual(rows[0], { current_user: 'catalog', current_database: 'catalog', max: '42' });
        // Loopback is trusted, as in the official image; other hosts (pods) need the password.
        const hba = await client.query(
          'SELECT type, database, user_name, address, auth_method FROM pg_hba_file_rules ORDER BY line_number DESC LIMIT 1',
        );
        assert.deepEqual(hba.rows[0], {
          type: 'host',
          database: ['all'],
          user_name: ['all'],
          address: 'all',
          auth_method: 'scram-sha-256',
        });
        const password = await client.query(
          "SELECT rolpassword LIKE 'SCRAM-SHA-256$%' AS scram FROM pg_authid WHERE rolname = current_user",
        );
        assert.equal(password.rows[0].scram, true);
      } finally {
        await client.end();
      }
    });
  });

  test('the redis stand-in takes redis-server options as arguments, as uid 999, without protected mode', async () => {
    const image = await mount('docker.io/library/redis:7.4.1');
    const port = String(await freePort());
    const server = image.commandLine(
      image.entrypoint(['--save', '', '--appendonly', 'no', '--maxmemory-policy', 'allkeys-lru', '--port', port, '--bind', '127.0.0.1']),
      {},
      '999:999',
    );
    await whileServing('redis stand-in', server, async () => {
      // The chart's readiness probe command, from inside the image.
      const cli = (...argv: string[]) => image.run(['redis-cli', '-p', port, ...argv], {}, '999:999');
      await waitFor('the redis stand-in', async () => ((await cli('ping')).stdout.trim() === 'PONG' ? true : undefined), 30_000);
      assert.equal((await cli('config', 'get', 'protected-mode')).stdout, 'protected-mode\nno\n');
      assert.equal((await cli('config', 'get', 'maxmemory-policy')).stdout, 'maxmemory-policy\nallkeys-lru\n');
    });
  });

  describe("the chart's own scripts and configuration, run in the stand-ins as their pods run them", () => {
    /** A private network (fixed ports, several servers, nothing on the host's), with an address that is not loopback. */
    const network = new NetworkNamespace(`catalog-images-${process.pid}`);
    const ADDRESS = '10.99.0.1';
    let rendered: Manifest[];
    const servers: GroupProcess[] = [];

    before(async () => {
      await network.createLoopback(ADDRESS);
      const helm = new Helm();
      try {
        rendered = parseManifests(await helm.template(VALUE_SETS['read replicas, Redis Sentinel, Jaeger']!));
      } finally {
        helm.cleanup();
      }
    });
    after(async () => {
      for (const server of servers) await server.stop();
      network.delete();
    });

    const podSpec = (kind: string, suffix: string) => (findManifest(rendered, kind, suffix) as any).spec.template.spec;
    const containerOf = (spec: any, name: string) => [...(spec.initContainers ?? []), ...spec.containers].find((c: any) => c.name === name);
    const configMap = (suffix: string) => (findManifest(rendered, 'ConfigMap', suffix) as any).data as Record<string, string>;

    /** Starts a server; a later failure of the test carries its log. */
    function serve(pod: ImagePod, name: string, container: any, env: Record<string, string>, extraArgs: string[] = []): GroupProcess {
      const server = pod.start(name, container, env, join(out, `${name}.log`), extraArgs);
      servers.push(server);
      return server;
    }
    async function withLogs<T>(names: GroupProcess[], body: () => Promise<T>): Promise<T> {
      try {
        return await body();
      } catch (error) {
        (error as Error).message += names.map((server) => `\n--- ${server.name}:\n${server.logTail(30)}`).join('');
        throw error;
      }
    }

    test('Postgres: the primary takes the Secret’s passwords at every start, a replica clones it with pg_basebackup and streams', async () => {
      const primaryPod = new ImagePod(await mount('docker.io/library/postgres:15.10'), network, '999:999');
      const replicaPod = new ImagePod(await mount('docker.io/library/postgres:15.10'), network, '999:999');
      const config = configMap('-postgresql');
      for (const pod of [primaryPod, replicaPod]) pod.placeConfigMap('/etc/postgresql', config);
      primaryPod.place('/docker-entrypoint-initdb.d/sync-roles.sql', config['sync-roles.sql']!);
      const primarySpec = podSpec('StatefulSet', '-postgresql');
      const replicaSpec = podSpec('StatefulSet', '-postgresql-read');
      const primaryEnv = (passwords: { POSTGRES_PASSWORD: string; REPLICATION_PASSWORD: string }) =>
        containerEnv(containerOf(primarySpec, 'postgresql'), passwords, 'shop-catalog-gateway-postgresql-0');
      // The primary's Service name resolves to this namespace's address here.
      const replicaEnv = (replicationPassword: string, name: string) =>
        containerEnv(
          containerOf(replicaSpec, name),
          { REPLICATION_PASSWORD: replicationPassword },
          'shop-catalog-gateway-postgresql-read-0',
          {
            PRIMARY_HOST: ADDRESS,
          },
        );
      // Clients from outside the pod: by the namespace's address, never trusted loopback.
      const psql = (pod: ImagePod, port: number, password: string, sql: string) =>
        pod.exec(['psql', '-h', ADDRESS, '-p', String(port), '-U', 'catalog', '-d', 'catalog', '-At', '-c', sql], { PGPASSWORD: password });
      const ready = (pod: ImagePod, port: number, password: string) =>
        waitFor(
          `postgres on ${port}`,
          async () => ((await psql(pod, port, password, 'SELECT 1')).stdout.trim() === '1' ? true : undefined),
          60_000,
        );

      // First start: sync-roles leaves the empty volume to the entrypoint, which runs sync-roles.sql.
      const first = { POSTGRES_PASSWORD: 'first-postgres', REPLICATION_PASSWORD: 'first-replication' };
      const initialised = await primaryPod.run(containerOf(primarySpec, 'sync-roles'), primaryEnv(first));
      assert.equal(initialised.code, 0, initialised.stderr);
      assert.match(initialised.stdout, /a new volume, the entrypoint initialises it/);
      let primary = serve(primaryPod, 'postgres-primary', containerOf(primarySpec, 'postgresql'), primaryEnv(first));
      await withLogs([primary], async () => {
        await ready(primaryPod, 5432, first.POSTGRES_PASSWORD);
        await psql(primaryPod, 5432, first.POSTGRES_PASSWORD, 'CREATE TABLE marks (id int); INSERT INTO marks VALUES (1)');
      });

      // The replica clones the primary as the replication role, then streams as a hot standby.
      const cloned = await replicaPod.run(
        containerOf(replicaSpec, 'clone-from-primary'),
        replicaEnv(first.REPLICATION_PASSWORD, 'clone-from-primary'),
      );
      assert.equal(cloned.code, 0, `${cloned.stdout}\n${cloned.stderr}`);
      const autoConf = await replicaPod.exec(['cat', '/var/lib/postgresql/data/pgdata/postgresql.auto.conf']);
      assert.doesNotMatch(autoConf.stdout, /password|primary_conninfo/, 'no password left on the replica’s volume');
      let replica = serve(
        replicaPod,
        'postgres-replica',
        containerOf(replicaSpec, 'postgresql'),
        replicaEnv(first.REPLICATION_PASSWORD, 'postgresql'),
        ['-p', '5433'],
      );
      await withLogs([primary, replica], async () => {
        await ready(replicaPod, 5433, first.POSTGRES_PASSWORD);
        assert.equal((await psql(replicaPod, 5433, first.POSTGRES_PASSWORD, 'SELECT pg_is_in_recovery()')).stdout.trim(), 't');
        await psql(primaryPod, 5432, first.POSTGRES_PASSWORD, 'INSERT INTO marks VALUES (2)');
        await waitFor(
          'the new row on the replica',
          async () =>
            (await psql(replicaPod, 5433, first.POSTGRES_PASSWORD, 'SELECT count(*) FROM marks')).stdout.trim() === '2' ? true : undefined,
          30_000,
        );
        const senders = await psql(
          primaryPod,
          5432,
          first.POSTGRES_PASSWORD,
          "SELECT application_name || ' ' || state FROM pg_stat_replication",
        );
        assert.equal(senders.stdout.trim(), 'shop-catalog-gateway-postgresql-read-0 streaming');
      });

      // New passwords in the Secret: sync-roles sets them on the initialised volume before the
      // primary starts again; the old one no longer logs in, the replica follows once restarted.
      await primary.stop();
      await replica.stop();
      const rotated = { POSTGRES_PASSWORD: 'rotated-postgres', REPLICATION_PASSWORD: 'rotated-replication' };
      const synced = await primaryPod.run(containerOf(primarySpec, 'sync-roles'), primaryEnv(rotated));
      assert.equal(synced.code, 0, `${synced.stdout}\n${synced.stderr}`);
      primary = serve(primaryPod, 'postgres-primary-rotated', containerOf(primarySpec, 'postgresql'), primaryEnv(rotated));
      replica = serve(
        replicaPod,
        'postgres-replica-rotated',
        containerOf(replicaSpec, 'postgresql'),
        replicaEnv(rotated.REPLICATION_PASSWORD, 'postgresql'),
        ['-p', '5433'],
      );
      await withLogs([primary, replica], async () => {
        await ready(primaryPod, 5432, rotated.POSTGRES_PASSWORD);
        const old = await psql(primaryPod, 5432, first.POSTGRES_PASSWORD, 'SELECT 1');
        assert.match(old.stderr, /password authentication failed for user "catalog"/);
        await waitFor(
          'the replica streaming with the rotated replication password',
          async () => {
            const senders = await psql(
              primaryPod,
              5432,
              rotated.POSTGRES_PASSWORD,
              "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'",
            );
            return senders.stdout.trim() === '1' ? true : undefined;
          },
          60_000,
        );
      });
      await primary.stop();
      await replica.stop();
    });

    test('Redis: a server asks the Sentinels for the primary, refuses writes without a replica, and a Sentinel (redis-server --sentinel) monitors it', async () => {
      const image = await mount('docker.io/library/redis:7.4.1');
      const pod = new ImagePod(image, network, '999:999');
      pod.placeConfigMap('/etc/redis-sentinel', configMap('-redis-sentinel'));
      const serverSpec = podSpec('StatefulSet', '-redis');
      const sentinelSpec = podSpec('StatefulSet', '-redis-sentinel');
      const secrets = { REDIS_PASSWORD: 'stand-in-redis' };
      const serverEnv = (ordinal: number) =>
        containerEnv(containerOf(serverSpec, 'redis'), secrets, `shop-catalog-gateway-redis-${ordinal}`);
      const sentinelEnv = containerEnv(containerOf(sentinelSpec, 'sentinel'), secrets, 'shop-catalog-gateway-redis-sentinel-0');
      // The pods' names resolve to this namespace's address (one Sentinel of three runs here).
      const hosts = [serverEnv(0).SELF_HOST, serverEnv(1).SELF_HOST, sentinelEnv.SELF_HOST];
      pod.place('/etc/hosts', `127.0.0.1 localhost\n${hosts.map((host) => `${ADDRESS} ${host}`).join('\n')}\n`);
      const cli = (port: number, ...argv: string[]) =>
        pod.exec(['redis-cli', '-h', ADDRESS, '-p', String(port), ...argv], { REDISCLI_AUTH: secrets.REDIS_PASSWORD });
      const answers = async (port: number) =>
        waitFor(`redis on ${port}`, async () => ((await cli(port, 'ping')).stdout.trim() === 'PONG' ? true : undefined), 30_000);

      // No Sentinel answers: server 0 starts as the primary, and with no replica it takes no write.
      let server = serve(pod, 'redis-server-0', containerOf(serverSpec, 'redis'), serverEnv(0));
      await withLogs([server], async () => {
        await answers(6379);
        assert.match((await cli(6379, 'info', 'replication')).stdout, /^role:master\r?$/m);
        const write = await cli(6379, 'set', 'k', 'v');
        assert.match(write.stdout + write.stderr, /NOREPLICAS/);
        const anonymous = await pod.exec(['redis-cli', '-h', ADDRESS, 'ping']);
        assert.match(anonymous.stdout + anonymous.stderr, /NOAUTH/);
      });

      const sentinel = serve(pod, 'redis-sentinel-0', containerOf(sentinelSpec, 'sentinel'), sentinelEnv);
      await withLogs([server, sentinel], async () => {
        await answers(26379);
        const primary = await cli(26379, 'sentinel', 'get-master-addr-by-name', 'catalog');
        assert.deepEqual(primary.stdout.trim().split('\n'), [serverEnv(0).SELF_HOST, '6379']);
        const anonymous = await pod.exec(['redis-cli', '-h', ADDRESS, '-p', '26379', 'ping']);
        assert.match(anonymous.stdout + anonymous.stderr, /NOAUTH/);
      });

      // Server 1 starting (server 0 gone) asks the Sentinel, which names server 0: it follows it as a replica.
      await server.stop();
      server = serve(pod, 'redis-server-1', containerOf(serverSpec, 'redis'), serverEnv(1));
      await withLogs([server, sentinel], async () => {
        await answers(6379);
        const replication = (await cli(6379, 'info', 'replication')).stdout;
        assert.match(replication, /^role:slave\r?$/m);
        assert.equal(/^master_host:(\S+)\r?$/m.exec(replication)?.[1], serverEnv(0).SELF_HOST);
      });
      await server.stop();
      await sentinel.stop();
    });

    test('Jaeger: the stand-in runs the chart’s configuration as uid 10001, takes an OTLP trace and returns it from its query API', async () => {
      const image = await mount('docker.io/jaegertracing/jaeger:2.13.0');
      assert.equal(image.config.User, '10001');
      const pod = new ImagePod(image, network, '10001:10001');
      pod.placeConfigMap('/etc/jaeger', configMap('-jaeger'));
      const jaeger = serve(pod, 'jaeger', podSpec('Deployment', '-jaeger').containers[0], {});
      const curl = (argv: string[]) => network.runOk('curl', ['-sS', '--max-time', '5', ...argv]);
      await withLogs([jaeger], async () => {
        await waitFor(
          'Jaeger /status (the probe)',
          async () => ((await network.run('curl', ['-sf', `http://${ADDRESS}:13133/status`])).code === 0 ? true : undefined),
          60_000,
        );
        const traceId = '5b8efff798038103d269b633813fc60c';
        const span = {
          traceId,
          spanId: 'eee19b7ec3c1b174',
          name: 'GET /products/:product_id',
          kind: 2,
          startTimeUnixNano: '1700000000000000000',
          endTimeUnixNano: '1700000000050000000',
        };
        const otlp = {
          resourceSpans: [
            {
              resource: { attributes: [{ key: 'service.name', value: { stringValue: 'catalog-gateway' } }] },
              scopeSpans: [{ spans: [span] }],
            },
          ],
        };
        await curl([
          '-f',
          '-H',
          'content-type: application/json',
          '--data-binary',
          JSON.stringify(otlp),
          `http://${ADDRESS}:4318/v1/traces`,
        ]);
        const found = await waitFor(
          'the trace in the query API',
          async () => {
            const body = JSON.parse(await curl([`http://${ADDRESS}:16686/api/traces/${traceId}`]));
            return body.data?.[0]?.spans?.length === 1 ? body.data[0] : undefined;
          },
          30_000,
        );
        assert.equal(found.spans[0].operationName, 'GET /products/:product_id');
        // The query API's gRPC port is bound to loopback only.
        assert.notEqual((await network.run('curl', ['-s', '--max-time', '2', `http://${ADDRESS}:16685/`])).code, 0);
      });
      await jaeger.stop();
    });
  });

  test('the prometheus and kube-state-metrics stand-ins run their pinned binaries as uid 65534', async () => {
    for (const [ref, versionCommand, version] of [
      ['docker.io/prom/prometheus:v2.55.1', '--version', /prometheus, version 2\.55\.1/],
      // v2.14.0 is not served by the Go module proxy: the stand-in runs v2.15.0 (README).
      ['registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.14.0', 'version', /v2\.15\.0/],
    ] as const) {
      const image = await mount(ref);
      assert.equal(image.config.User, '65534:65534', ref);
      // Empty images (no shell): the binary runs directly.
      const result = await run('chroot', ['--userspec=65534:65534', image.root, image.config.Entrypoint![0]!, versionCommand]);
      assert.match(result.stdout + result.stderr, version, ref);
    }
  });
});
