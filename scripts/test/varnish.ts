// A real Varnish (Debian's varnish with varnish-modules for xkey) on loopback, running the
// chart's sample VCL (charts/catalog-gateway/files/varnish/catalog.vcl) in front of the given
// backends, with its admin port for switching VCLs while it runs.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.js';
import { GroupProcess, runOk } from './process.js';
import { waitFor } from './wait.js';

const VARNISHD_BIN = process.env.VARNISHD_BIN ?? 'varnishd';
const VARNISHADM_BIN = process.env.VARNISHADM_BIN ?? 'varnishadm';
const VARNISHSTAT_BIN = process.env.VARNISHSTAT_BIN ?? 'varnishstat';
const SAMPLE_VCL = fileURLToPath(new URL('../../charts/catalog-gateway/files/varnish/catalog.vcl', import.meta.url));

/** The sample VCL's ACL of who may purge: replaced to refuse every purge. */
const PURGERS_ACL = /acl purgers \{[^}]*\}/;
/** An address no client here has (TEST-NET-1, RFC 5737): an ACL of it refuses everyone. */
const NOBODY = 'acl purgers {\n    "192.0.2.1";\n}';

export interface VarnishBackend {
  host: string;
  port: number;
}

export interface VarnishServer {
  readonly port: number;
  /** Where clients read, and where the gateways send their PURGEs. */
  readonly url: string;
  /** Loads the sample VCL with an ACL nobody here matches: every PURGE is answered 403 (the purge path is down). */
  refusePurges(): Promise<void>;
  /** Back to the VCL it started with: purges accepted. */
  acceptPurges(): Promise<void>;
  /** One counter of `varnishstat` (`MAIN.cache_hit`, `MAIN.n_object`…). */
  counter(name: string): Promise<number>;
  stop(): Promise<void>;
}

/** The director `gateways` the sample VCL routes to, round-robin over `backends`. */
function backendsVcl(backends: readonly VarnishBackend[]): string {
  const declared = backends.map(({ host, port }, index) => `backend gateway_${index} {\n    .host = "${host}";\n    .port = "${port}";\n}`);
  const added = backends.map((_, index) => `    gateways.add_backend(gateway_${index});`);
  return `${declared.join('\n')}\n\nsub vcl_init {\n    new gateways = directors.round_robin();\n${added.join('\n')}\n}\n`;
}

/**
 * Starts varnishd in the foreground on `port` (a free one by default) with the sample VCL, its
 * backends written into a backends.vcl of its own, 64 MiB of malloc storage, and its admin
 * interface on another loopback port. `-j none`: no privilege separation, for a test run as root.
 */
export async function startVarnish(backends: readonly VarnishBackend[], port?: number): Promise<VarnishServer> {
  const listen = port ?? (await freePort());
  const adminPort = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'catalog-varnish-'));
  const workDir = join(dir, 'work');
  await writeFile(join(dir, 'backends.vcl'), backendsVcl(backends));
  const sample = await readFile(SAMPLE_VCL, 'utf8');
  if (!PURGERS_ACL.test(sample)) throw new Error(`${SAMPLE_VCL} has no "acl purgers { … }" block to replace`);
  const refusing = join(dir, 'purges-refused.vcl');
  await writeFile(refusing, sample.replace(PURGERS_ACL, NOBODY));
  const url = `http://127.0.0.1:${listen}`;
  const server = new GroupProcess(`${VARNISHD_BIN} (Debian's varnish and varnish-modules packages)`, VARNISHD_BIN, [
    '-F',
    '-j',
    'none',
    '-a',
    `127.0.0.1:${listen}`,
    '-T',
    `127.0.0.1:${adminPort}`,
    '-n',
    workDir,
    '-f',
    SAMPLE_VCL,
    '-p',
    `vcl_path=${dir}:/usr/share/varnish/vcl`,
    '-s',
    'malloc,64m',
  ]);
  const admin = (...args: string[]) => runOk(VARNISHADM_BIN, ['-n', workDir, ...args]);
  const purgeAnswers = async () => {
    const response = await fetch(url, { method: 'PURGE', headers: { 'xkey-purge': 'nothing' } }).catch(() => undefined);
    return response?.ok ? true : undefined;
  };
  await server.waitUntilReady(async () => (await purgeAnswers()) === true, 60_000);
  let refusingLoaded = false;
  return {
    port: listen,
    url,
    async refusePurges() {
      if (!refusingLoaded) await admin('vcl.load', 'purges_refused', refusing);
      refusingLoaded = true;
      await admin('vcl.use', 'purges_refused');
      await waitFor('Varnish refusing purges', async () => ((await purgeAnswers()) ? undefined : true), 10_000, 50);
    },
    async acceptPurges() {
      await admin('vcl.use', 'boot');
      await waitFor('Varnish accepting purges', purgeAnswers, 10_000, 50);
    },
    async counter(name: string) {
      const stats = JSON.parse(await runOk(VARNISHSTAT_BIN, ['-n', workDir, '-1', '-j', '-f', name])) as {
        counters?: Record<string, { value: number }>;
      } & Record<string, { value: number }>;
      const entry = stats.counters?.[name] ?? stats[name];
      if (!entry) throw new Error(`varnishstat has no counter ${name}`);
      return entry.value;
    },
    async stop() {
      await server.stop(5_000);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
