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
import { Helm, parseManifests, REPO_ROOT } from './support/chart.js';
import { imageSize, LocalImage } from './support/local-image.js';
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

  test('images.json lists an archive for every image the chart runs (Grafana off) and the sandbox image', async () => {
    const helm = new Helm();
    try {
      const expected = chartImages(await helm.template({ grafana: { enabled: false } }));
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
